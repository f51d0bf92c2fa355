/** Webhook dispatcher. Never rename or re-status a shipped code; append new ones. */
export const WEBHOOKS_ERRORS = {
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'Webhook endpoint not found' },
  WEBHOOK_EVENT_NOT_FOUND: { status: 404, message: 'Webhook event not found' },
  INVALID_WEBHOOK_URL: { status: 400, message: 'Webhook URL must be an absolute http(s) URL' },
  INVALID_WEBHOOK_EVENT: { status: 400, message: 'Webhook event is malformed (event, UUID v4 id, ISO 8601 createdAt, object data)' },
  INVALID_TIME_WINDOW: { status: 400, message: 'The time window is invalid (from must be before to, at most 31 days)' },
  WEBHOOK_QUEUE_UNAVAILABLE: { status: 503, message: 'The webhook queue is unavailable: nothing was queued, try again' },
  WEBHOOK_QUEUE_UNCONFIRMED: {
    status: 503,
    message:
      'The webhook queue did not confirm in time: the job may still be queued and delivered. The event stays pending and is queued again by the pending sweep if its job never appears: do not resend it',
  },
} as const satisfies Record<string, { status: number; message: string }>;
