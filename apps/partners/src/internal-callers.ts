import type { InternalCallerTable } from '@mm/platform';

/**
 * Who may call each internal route of partners (docs/service-credentials.md): the orchestrator alone
 * — QR lookups when a customer pays an order (merchant-qr.client.ts), and the merchant and back-office
 * routes it serves on top of these (partners.client.ts). Anything not listed is refused.
 */
export const PARTNERS_INTERNAL_CALLERS: InternalCallerTable = {
  'GET /internal/partners/qr/:qrToken': ['orchestrator'],

  // merchants answering connection requests, and the admin's revocation
  'GET /internal/partners/merchants/:merchantId/connections': ['orchestrator'],
  'POST /internal/partners/merchants/:merchantId/connections/:connectionId/accept': ['orchestrator'],
  'POST /internal/partners/merchants/:merchantId/connections/:connectionId/reject': ['orchestrator'],
  'POST /internal/partners/merchants/:merchantId/connections/:connectionId/revoke': ['orchestrator'],
  'POST /internal/partners/connections/:connectionId/revoke': ['orchestrator'],

  // integrations, API keys and webhook settings (back office)
  'POST /internal/partners/integrations': ['orchestrator'],
  'GET /internal/partners/integrations': ['orchestrator'],
  'GET /internal/partners/integrations/:integrationId': ['orchestrator'],
  'POST /internal/partners/integrations/:integrationId/revoke': ['orchestrator'],
  'GET /internal/partners/integrations/:integrationId/keys': ['orchestrator'],
  'POST /internal/partners/integrations/:integrationId/keys': ['orchestrator'],
  'POST /internal/partners/integrations/:integrationId/keys/:keyId/rotate': ['orchestrator'],
  'POST /internal/partners/integrations/:integrationId/keys/:keyId/revoke': ['orchestrator'],
  'PUT /internal/partners/integrations/:integrationId/webhook-endpoint': ['orchestrator'],
  'POST /internal/partners/integrations/:integrationId/webhook-secret/rotate': ['orchestrator'],

  // payments that could not pay their order, for operations to settle (through the back office)
  'GET /internal/partners/payment-anomalies': ['orchestrator'],
  'POST /internal/partners/payment-anomalies/:anomalyId/resolve': ['orchestrator'],

  // what staff read in the back office: integrations with endpoints and connections, an order's events
  'GET /internal/partners/backoffice/integrations': ['orchestrator'],
  'GET /internal/partners/backoffice/integrations/:integrationId': ['orchestrator'],
  'GET /internal/partners/backoffice/integrations/:integrationId/connections': ['orchestrator'],
  'GET /internal/partners/backoffice/orders/:orderId/events': ['orchestrator'],
  'GET /internal/partners/backoffice/events/:eventId': ['orchestrator'],

  // the partner order each payment of a merchant's settlement statement paid (docs/statements.md)
  'POST /internal/partners/statements/paid-orders': ['orchestrator'],
};
