import type { InternalCallerTable } from '@mm/platform';

/**
 * Who may call each internal route of the orchestrator (served on its internal listener only;
 * docs/service-credentials.md): partners reads the merchant directory (merchant-directory.client.ts)
 * to check connection requests and orders, and asks whether the ledger paid orders' QR tokens before
 * it expires them. Anything not listed is refused.
 */
export const ORCHESTRATOR_INTERNAL_CALLERS: InternalCallerTable = {
  'GET /api/internal/directory/merchants/by-phone': ['partners'],
  'GET /api/internal/directory/merchants/:merchantId': ['partners'],
  // the ledger part of a connected merchant's settlement statement (docs/statements.md)
  'GET /api/internal/statements/merchants/:merchantId': ['partners'],
  // whether the ledger paid QR tokens, asked before partners expires orders (relayed to the ledger)
  'POST /api/internal/qr-payments': ['partners'],
};
