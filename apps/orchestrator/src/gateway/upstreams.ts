import { InternalHttpClient } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';

export const UPSTREAMS = Symbol('UPSTREAMS');

export type UpstreamName = 'auth' | 'partners' | 'ledger-wallets' | 'webhook-dispatcher';
export type Upstreams = Record<UpstreamName, InternalHttpClient>;

/** Typed clients for the services the orchestrator calls (service key, ids, timeout on every call). */
export function createUpstreams(config: OrchestratorConfig): Upstreams {
  const client = (name: UpstreamName, baseUrl: string) =>
    new InternalHttpClient({ name, baseUrl, serviceKey: config.INTERNAL_SERVICE_KEY, timeoutMs: config.UPSTREAM_TIMEOUT_MS });
  return {
    auth: client('auth', config.AUTH_URL),
    partners: client('partners', config.PARTNERS_URL),
    'ledger-wallets': client('ledger-wallets', config.LEDGER_URL),
    'webhook-dispatcher': client('webhook-dispatcher', config.WEBHOOK_DISPATCHER_URL),
  };
}
