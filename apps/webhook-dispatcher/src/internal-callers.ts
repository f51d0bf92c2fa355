import { type InternalCallerTable, OPS_CALLER } from '@mm/platform';

/**
 * Who may call each internal route of the dispatcher (docs/service-credentials.md): partners
 * registers endpoints and rotates their secrets (dispatcher-endpoints.client.ts) and is the only
 * producer of events; operators inspect deliveries, replay them and re-enable endpoints. Operators
 * cannot create an event: that would let them forge a signed webhook. Anything not listed is refused.
 */
export const DISPATCHER_INTERNAL_CALLERS: InternalCallerTable = {
  'PUT /internal/webhooks/endpoints/:integrationId': ['partners'],
  'GET /internal/webhooks/endpoints/:integrationId': [OPS_CALLER],
  'POST /internal/webhooks/endpoints/:integrationId/rotate-secret': ['partners'],
  'POST /internal/webhooks/endpoints/:integrationId/enable': [OPS_CALLER],
  'GET /internal/webhooks/endpoints/:integrationId/health-events': [OPS_CALLER],

  'POST /internal/webhooks/events': ['partners'],
  'POST /internal/webhooks/events/resend-undelivered': [OPS_CALLER],
  'GET /internal/webhooks/events/:eventId': [OPS_CALLER],
  'GET /internal/webhooks/events/:eventId/attempts': [OPS_CALLER],
  'POST /internal/webhooks/events/:eventId/resend': [OPS_CALLER],
};
