import type { BenchClient, HttpResult } from '../ledger/http-client';

/** The answer of a setup call, if it has the status the bench needs; otherwise the run stops on what came back. */
export function must(res: HttpResult, status: number, what: string): HttpResult {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/**
 * Publishes the next version of one admin-managed configuration, the way an operator would: reads
 * the current version, lets `edit` change its document in place, and posts it on top of the
 * version it read.
 */
export async function reviseConfig<D>(
  gateway: BenchClient,
  adminToken: string,
  name: 'risk' | 'limits',
  reason: string,
  edit: (document: D) => void,
): Promise<void> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const current = must(await gateway.call('GET', `/api/config/${name}`, undefined, auth), 200, `${name} config`).body as {
    version: number;
    document: D;
  };
  edit(current.document);
  must(
    await gateway.call('POST', `/api/config/${name}/versions`, { baseVersion: current.version, reason, document: current.document }, auth),
    201,
    `${name} change`,
  );
}
