/** People for staff (docs/roles.md "People in the back office"): the back office's search, 360 view and actions on a person. Never rename or re-status a shipped code; append new ones. */
export const PEOPLE_ERRORS = {
  /** no customer, merchant, agent or staff member has this user id */
  PERSON_NOT_FOUND: { status: 404, message: 'No person has this user id' },
  /** freezing is for customers, merchants and agents; a staff member's access ends by a role change or by ending their sessions */
  PERSON_NOT_FREEZABLE: { status: 409, message: 'Only customers, merchants and agents can be frozen' },
  /** an unfreeze was asked for a person who is not frozen */
  PERSON_NOT_FROZEN: { status: 409, message: 'The person is not frozen' },
  /** only staff sign in with a second factor */
  SECOND_FACTOR_STAFF_ONLY: { status: 409, message: 'Only staff members have a second factor to reset' },
  /** nobody asks for or approves a change of their own role or second factor */
  OWN_ACCOUNT_ACTION: { status: 403, message: 'Nobody asks for or decides this about their own account' },
  /** disabling and enabling are for staff members; customers, merchants and agents are frozen */
  PERSON_NOT_STAFF: { status: 409, message: 'Only staff members are disabled or enabled' },
  /** a disable was asked for a staff member who is already disabled */
  STAFF_ALREADY_DISABLED: { status: 409, message: 'The staff member is already disabled' },
  /** an enable was asked for a staff member who is not disabled */
  STAFF_NOT_DISABLED: { status: 409, message: 'The staff member is not disabled' },
} as const satisfies Record<string, { status: number; message: string }>;
