/** The staff audit trail (`/api/backoffice/audit-trail`). Never rename or re-status a shipped code; append new ones. */
export const STAFF_AUDIT_ERRORS = {
  AUDIT_TRAIL_UNAVAILABLE: {
    status: 503,
    message:
      'The staff audit trail could not record this request, so its answer is withheld; a write may have taken effect: check before retrying',
  },
} as const satisfies Record<string, { status: number; message: string }>;
