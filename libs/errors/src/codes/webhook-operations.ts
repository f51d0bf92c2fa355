/**
 * Webhook and partner-integration operations of staff (`/api/backoffice/webhooks`,
 * `/api/backoffice/partners`). Never rename or re-status a shipped code; append new ones.
 */
export const WEBHOOK_OPERATIONS_ERRORS = {
  WEBHOOK_RESEND_KEY_REUSED: {
    status: 409,
    message: 'This idempotency key already resent another event: use a new key for each resend',
  },
  PARTNER_KEY_NOT_COLLECTABLE: {
    status: 404,
    message: 'No API key is waiting to be collected for this request (not approved yet, already collected, or kept too long)',
  },
  PARTNER_KEY_COLLECTOR_NOT_MAKER: {
    status: 403,
    message: 'Only the staff member who asked for the key can collect it',
  },
  WEBHOOK_EVENT_PENDING: {
    status: 409,
    message: 'The event is still being delivered (pending): resend it once it is failed or held, or wait for its retries',
  },
  WEBHOOK_SECRET_NOT_COLLECTABLE: {
    status: 404,
    message: 'No webhook secret is waiting to be collected for this request (not approved yet, already collected, or kept too long)',
  },
} as const satisfies Record<string, { status: number; message: string }>;
