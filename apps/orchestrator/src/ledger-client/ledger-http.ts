import { InternalHttpClient } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';

/** An internal HTTP client to ledger-wallets with the orchestrator's service key; `timeoutMs` is the client's default per call. */
export function ledgerHttpClient(config: OrchestratorConfig, timeoutMs: number): InternalHttpClient {
  return new InternalHttpClient({
    name: 'ledger-wallets',
    baseUrl: config.LEDGER_URL,
    serviceKey: config.INTERNAL_SERVICE_KEY,
    timeoutMs,
  });
}
