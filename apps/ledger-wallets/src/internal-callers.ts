import { type InternalCallerTable, OPS_CALLER } from '@mm/platform';

/**
 * Who may call each internal route of the ledger (docs/service-credentials.md). Only the
 * orchestrator moves customers' money (intents, wallets); operators read, audit and correct under
 * maker-checker. Audits, integrity checks and corrections also require the acting operator's
 * access token (verified here, whichever service relays it): the key says which service calls, the
 * token who acts. Audits and integrity checks come from the operators' tooling or from compliance
 * officers through the orchestrator's `/api/v1/compliance/*` routes. Partners learns about
 * payments from the `ledger-events` queue and has no route here (what it asks before expiring an
 * order, the orchestrator asks for it). Anything not listed is refused.
 */
export const LEDGER_INTERNAL_CALLERS: InternalCallerTable = {
  // the money path: IntentCreateService, IntentStepsService, IntentConfirmService, PaymentReconciler
  'POST /v1/internal/intents': ['orchestrator'],
  'GET /v1/internal/intents/:id': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/intents/:id/events': [OPS_CALLER],
  'POST /v1/internal/intents/:id/transition': ['orchestrator'],

  // wallets: registration sagas open them and close them when undone; balances and history read them
  'POST /v1/internal/wallets': ['orchestrator'],
  'POST /v1/internal/wallets/close': ['orchestrator'],
  'GET /v1/internal/wallets': [OPS_CALLER],
  'GET /v1/internal/wallets/:id': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/accounts/:id': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/technical-accounts': ['orchestrator', OPS_CALLER],
  // a holder's history: the adjustments on its accounts and which payments were reversed
  'GET /v1/internal/adjustments': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reversals': ['orchestrator', OPS_CALLER],
  // a merchant's settlement statement (docs/statements.md), asked by the orchestrator for the merchant, the back office and partners
  'GET /v1/internal/accounts/:id/settlement-statement': ['orchestrator', OPS_CALLER],
  // the back office's operation search and payment story (staff authorised by the orchestrator)
  'GET /v1/internal/operator-search/operations': ['orchestrator'],
  'GET /v1/internal/operator-search/operations/:key': ['orchestrator'],
  // the facts of the regulatory reports (daily threshold report), which the orchestrator also runs unattended
  'GET /v1/internal/regulatory/operations': ['orchestrator'],
  // which QR tokens were paid: partners asks before it expires an order, relayed by the orchestrator
  'POST /v1/internal/qr-payments': ['orchestrator'],

  // operators (operator token required): audits and integrity checks, also relayed by the
  // orchestrator for compliance officers; maker-checker corrections
  'GET /v1/internal/accounts/:id/audit': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/integrity-checks': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/integrity-checks': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/ledger-chain/verifications': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/ledger-chain/verifications': ['orchestrator', OPS_CALLER],
  // the orchestrator's witness of the chain's anchors (no operator token: it runs unattended)
  'GET /v1/internal/ledger-chain/anchors/latest': ['orchestrator'],
  'GET /v1/internal/ledger-chain/anchors/:n': ['orchestrator'],
  // corrections and holds: staff reach them through the orchestrator's /api/backoffice/ledger routes
  // (its maker-checker engine relays the maker's or the checker's token); `ops` is break-glass only
  'POST /v1/internal/corrections': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/corrections': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/corrections/:id': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/corrections/:id/preview': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/corrections/:id/approve': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/corrections/:id/reject': ['orchestrator', OPS_CALLER],
  // the engine's expiry of a request nobody decided: no operator token (nobody acted), journaled under the caller
  'POST /v1/internal/corrections/:id/expire': ['orchestrator'],
  // the engine settling a cut execution or an unstored submission: read by idempotency key, no operator token
  'GET /v1/internal/corrections/by-key/:key': ['orchestrator'],
  'GET /v1/internal/holds/by-key/:key': ['orchestrator'],
  'POST /v1/internal/holds': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/holds': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/holds/:id': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/holds/:id/release': ['orchestrator', OPS_CALLER],
  // float reconciliation (operator token required: COMPLIANCE or ADMIN): the orchestrator's
  // /api/v1/compliance/reconciliation routes relay the officer's token (docs/reconciliation.md)
  'POST /v1/internal/reconciliation/statements': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/statements': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/statements/:id': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/reconciliation/runs': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/runs': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/runs/:id': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/runs/:id/report': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/alerts': ['orchestrator', OPS_CALLER],
  'GET /v1/internal/reconciliation/alerts/:id': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/reconciliation/alerts/:id/acknowledge': ['orchestrator', OPS_CALLER],
  'POST /v1/internal/reconciliation/alerts/:id/resolve': ['orchestrator', OPS_CALLER],

  // test funding (NODE_ENV=test only; 403 elsewhere): the operators' key, as the tests and benches use it
  'PUT /v1/accounts/:id/balance/:operation': [OPS_CALLER],
};
