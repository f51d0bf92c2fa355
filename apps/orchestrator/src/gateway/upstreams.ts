import { InternalHttpClient, type UpstreamUrls } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';

export const UPSTREAMS = Symbol('UPSTREAMS');

export type UpstreamName = 'auth' | 'partners' | 'ledger-wallets' | 'webhook-dispatcher';
export type Upstreams = Record<UpstreamName, InternalHttpClient>;

/** Where each service the orchestrator calls is: one base URL, or one per replica. */
export function upstreamUrls(config: OrchestratorConfig): Record<UpstreamName, UpstreamUrls> {
  return {
    auth: config.AUTH_URL,
    partners: config.PARTNERS_URL,
    'ledger-wallets': config.LEDGER_URL,
    'webhook-dispatcher': config.WEBHOOK_DISPATCHER_URL,
  };
}

/** Typed clients for the services the orchestrator calls (service key, ids, timeout on every call). */
export function createUpstreams(config: OrchestratorConfig): Upstreams {
  const urls = upstreamUrls(config);
  const client = (name: UpstreamName) =>
    new InternalHttpClient({ name, baseUrl: urls[name], serviceKey: config.INTERNAL_SERVICE_KEY, timeoutMs: config.UPSTREAM_TIMEOUT_MS });
  return {
    auth: client('auth'),
    partners: client('partners'),
    'ledger-wallets': client('ledger-wallets'),
    'webhook-dispatcher': client('webhook-dispatcher'),
  };
}
