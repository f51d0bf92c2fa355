/** Service credentials, abuse limits, webhook URL safety. Never rename or re-status a shipped code; append new ones. */
export const RELIABILITY_ERRORS = {
  WEBHOOK_URL_FORBIDDEN_ADDRESS: {
    status: 400,
    message:
      'Webhook URL host resolves to an address that may not receive webhooks (loopback, private, link-local, multicast, unspecified, reserved or cloud metadata)',
  },
} as const satisfies Record<string, { status: number; message: string }>;
