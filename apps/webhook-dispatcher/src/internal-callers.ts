import { type InternalCallerTable, OPS_CALLER } from '@mm/platform';

/**
 * Who may call each internal route of the dispatcher (docs/service-credentials.md): partners
 * registers endpoints and rotates their secrets (dispatcher-endpoints.client.ts) and is the only
 * producer of events; the orchestrator reads deliveries, resends, recovers and re-enables endpoints
 * for staff, who are authorised there by role (`/api/backoffice/webhooks`); `ops` keeps the same
 * routes for break-glass use only. Neither can create an event: that would let them forge a signed
 * webhook. Anything not listed is refused.
 */
export const DISPATCHER_INTERNAL_CALLERS: InternalCallerTable = {
  'PUT /internal/webhooks/endpoints/:integrationId': ['partners'],
  'GET /internal/webhooks/endpoints/:integrationId': ['orchestrator', OPS_CALLER],
  'GET /internal/webhooks/endpoints/:integrationId/state': ['orchestrator', OPS_CALLER],
  'POST /internal/webhooks/endpoints/:integrationId/rotate-secret': ['partners'],
  'POST /internal/webhooks/endpoints/:integrationId/enable': ['orchestrator', OPS_CALLER],
  'GET /internal/webhooks/endpoints/:integrationId/health-events': ['orchestrator', OPS_CALLER],

  'POST /internal/webhooks/events': ['partners'],
  'GET /internal/webhooks/events': ['orchestrator', OPS_CALLER],
  'POST /internal/webhooks/events/resend-undelivered': ['orchestrator', OPS_CALLER],
  'GET /internal/webhooks/events/:eventId': ['orchestrator', OPS_CALLER],
  'GET /internal/webhooks/events/:eventId/attempts': ['orchestrator', OPS_CALLER],
  'POST /internal/webhooks/events/:eventId/resend': ['orchestrator', OPS_CALLER],
};
