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
  // Why a delivery attempt failed: the `errorCode` of an attempt in the attempt log (GET …/attempts).
  // No route answers with these; the status is what a gateway would answer for that failure.
  WEBHOOK_SECRET_UNREADABLE: {
    status: 500,
    message: "The endpoint's secret cannot be decrypted with the current WEBHOOK_SECRET_ENCRYPTION_KEY: nothing was sent",
  },
  WEBHOOK_DNS_FAILED: { status: 502, message: "The endpoint's host name did not resolve: nothing was sent" },
  WEBHOOK_ADDRESS_REFUSED: {
    status: 502,
    message: 'The endpoint URL, or an address its host resolves to, is refused by the egress (SSRF) policy: nothing was sent',
  },
  WEBHOOK_RECEIVER_UNREACHABLE: { status: 502, message: 'The connection to the endpoint failed' },
  WEBHOOK_RECEIVER_TIMEOUT: { status: 504, message: 'The endpoint did not answer within the timeout' },
  WEBHOOK_RECEIVER_HTTP_ERROR: { status: 502, message: 'The endpoint answered with a status other than 2xx' },
} as const satisfies Record<string, { status: number; message: string }>;
