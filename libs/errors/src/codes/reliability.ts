/** Service credentials, abuse limits, webhook URL safety. Never rename or re-status a shipped code; append new ones. */
export const RELIABILITY_ERRORS = {
  /** A known service credential on an internal route its service is not allow-listed for (docs/service-credentials.md). */
  SERVICE_NOT_ALLOWED: { status: 403, message: 'This service is not allowed to call this route' },
  WEBHOOK_URL_FORBIDDEN_ADDRESS: {
    status: 400,
    message:
      'Webhook URL host resolves to an address that may not receive webhooks (loopback, private, link-local, multicast, unspecified, reserved or cloud metadata)',
  },
} as const satisfies Record<string, { status: number; message: string }>;
