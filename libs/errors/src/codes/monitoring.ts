/** Transaction monitoring: rules, alerts and cases (`/api/v1/compliance/alerts`, `/cases`). Never rename or re-status a shipped code; append new ones. */
export const MONITORING_ERRORS = {
  ALERT_NOT_FOUND: { status: 404, message: 'No monitoring alert has this id' },
  CASE_NOT_FOUND: { status: 404, message: 'No compliance case has this id' },
  CASE_CLOSED: { status: 409, message: 'The case is closed: its decision is final' },
  CASE_DECISION_PENDING: {
    status: 409,
    message: 'A FREEZE decision on this case waits for a second officer: approve or reject that request first',
  },
  CASE_NOT_ASSIGNED_TO_YOU: { status: 409, message: 'Only the officer the case is assigned to decides it: assign it to yourself first' },
  CASE_ASSIGNEE_NOT_OFFICER: {
    status: 422,
    message: 'A case is assigned only to an active compliance officer or administrator',
  },
  CASE_SUBJECT_ALREADY_FROZEN: { status: 409, message: 'The person this case is about is already frozen: close the case with NO_ACTION' },
  CASE_SUBJECT_NOT_FREEZABLE: { status: 409, message: 'The person this case is about can no longer be frozen (closed, or not found)' },
  CASE_CHANGED: {
    status: 409,
    message: 'The case changed since you read it (a new alert, note, evidence or assignment): read it again, then decide',
  },
  MONITORED_OPERATION_NOT_FOUND: { status: 404, message: 'No operation the monitoring feed received has this reference' },
} as const satisfies Record<string, { status: number; message: string }>;
