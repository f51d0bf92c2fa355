/** The staff audit trail (`/api/backoffice/audit-trail`). Never rename or re-status a shipped code; append new ones. */
export const STAFF_AUDIT_ERRORS = {
  AUDIT_TRAIL_UNAVAILABLE: {
    status: 503,
    message: 'The staff audit trail could not record this request: a write is then not carried out, and a read’s answer is withheld',
  },
} as const satisfies Record<string, { status: number; message: string }>;
