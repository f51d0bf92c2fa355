import type { Pool, PoolClient } from 'pg';
import { currentContext } from './request-context';

/** pg-pool's text for a checkout that found no free connection within `connectionTimeoutMillis`. */
export const POOL_CHECKOUT_TIMEOUT = 'timeout exceeded when trying to connect';

/** One connection checked out of the pool when a checkout gave up. */
export interface PoolHolder {
  heldMs: number;
  /** the request it was checked out for; absent for work outside any request (periodic jobs, workers) */
  requestId?: string;
  /** outside any request: the first of our own stack frames that asked for it (function and file) */
  by?: string[];
}

/** The pool as it was when a checkout gave up: attached to the error as `pool`. */
export interface PoolExhaustion {
  exhausted: true;
  max: number;
  inUse: number;
  idle: number;
  /** other checkouts still queued behind this one */
  waiting: number;
  /** longest held first (at most MAX_HOLDERS) */
  holders: PoolHolder[];
}

const MAX_HOLDERS = 10;
const SITE_FRAMES = 3;

/**
 * Where a checkout outside any request came from. V8 records the frames when the Error is made and
 * formats them only when `stack` is read, which happens here for a timeout's report alone. Requests
 * need none of this: their id finds their log lines.
 */
function checkoutSite(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 25;
  const site = new Error('checkout');
  Error.stackTraceLimit = limit;
  return site;
}

/**
 * Our own frames of a checkout site (the apps' and libs' code, not pg's, TypeORM's, Node's nor this
 * file's), each shortened to its function and its path from the repository root.
 */
function ownFrames(site: Error): string[] {
  return (site.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().replace(/^at /, ''))
    .filter((frame) => /\/(apps|libs|tools|test)\//.test(frame) && !/node_modules|db-pool-logging\.(ts|js)/.test(frame))
    .slice(0, SITE_FRAMES)
    .map((frame) => frame.replace(/\/\S*?\/((?:apps|libs|tools|test)\/)/, '$1'));
}

type ConnectCallback = (err: Error | undefined, client: PoolClient | undefined, release: (err?: Error | boolean) => void) => void;

/**
 * Makes a checkout timeout say what it is. pg-pool (3.x) raises "timeout exceeded when trying to
 * connect" only for a checkout that queued because every connection of the pool was checked out,
 * and none came back in time; a slow or unreachable server fails differently (`Connection
 * terminated due to connection timeout`, ECONNREFUSED). So the error names this process's own pool
 * as the bottleneck, not the database, and says who held its connections and for how long: a
 * request (its id, to find its log lines) or work outside any request. The text keeps pg-pool's
 * words first, so the error still reads as a backing service being unavailable (503, Retry-After).
 *
 * Costs one Map entry per checkout, and for a checkout outside any request its unformatted stack.
 */
export function explainPoolTimeouts(pool: Pool): void {
  const held = new Map<PoolClient, { since: number; requestId?: string; site?: Error }>();
  pool.on('release', (_err: Error | undefined, client: PoolClient) => held.delete(client));
  pool.on('remove', (client: PoolClient) => held.delete(client));

  const explain = (error: unknown): void => {
    if (!(error instanceof Error) || error.message !== POOL_CHECKOUT_TIMEOUT) return;
    const now = Date.now();
    const holders = [...held.values()]
      .map(({ since, requestId, site }) => ({
        heldMs: now - since,
        ...(requestId ? { requestId } : {}),
        ...(site ? { by: ownFrames(site) } : {}),
      }))
      .sort((a, b) => b.heldMs - a.heldMs)
      .slice(0, MAX_HOLDERS);
    const max = (pool.options as { max?: number }).max ?? pool.totalCount;
    const state: PoolExhaustion = {
      exhausted: true,
      max,
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      holders,
    };
    const outside = holders.filter((h) => !h.requestId).length;
    const longest = holders[0];
    const who = longest ? (longest.requestId ? `request ${longest.requestId}` : (longest.by?.[0]?.split(' ')[0] ?? 'unknown')) : '';
    error.message =
      `${POOL_CHECKOUT_TIMEOUT}: all ${max} connections of this process's pool stayed checked out` +
      (longest ? ` (longest ${longest.heldMs} ms, by ${who}; ${outside} of ${holders.length} outside any request)` : '') +
      `, ${state.waiting} more waiting`;
    Object.assign(error, { pool: state });
  };

  const original = pool.connect.bind(pool) as (callback?: ConnectCallback) => Promise<PoolClient> | undefined;
  const checkout = (callback?: ConnectCallback): Promise<PoolClient> | undefined => {
    // Read where the checkout is asked for: the callback may run in the context of whoever released.
    const requestId = currentContext()?.requestId;
    const site = requestId ? undefined : checkoutSite();
    const taken = (client: PoolClient) => held.set(client, { since: Date.now(), requestId, site });
    if (typeof callback === 'function') {
      return original((err, client, release) => {
        if (err) explain(err);
        else if (client) taken(client);
        callback(err, client, release);
      });
    }
    return original()!.then(
      (client) => {
        taken(client);
        return client;
      },
      (err: unknown) => {
        explain(err);
        throw err;
      },
    );
  };
  pool.connect = checkout as Pool['connect'];
}
