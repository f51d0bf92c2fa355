import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the proxy received it, offered to the predicate that decides whether to cut it. */
export interface ProxiedRequest {
  method: string;
  /** The request target as sent (path and query string). */
  url: string;
  /** `url` without its query string. */
  path: string;
  /** The whole request body, decoded as UTF-8. */
  body: string;
}

/**
 * When a chosen request loses its connection: `before` the upstream sees it (nothing happened
 * there), `after` the upstream answered (it acted, the answer is lost as with a timeout), or
 * `off` (passed on like any other request).
 */
export type CutWhen = 'before' | 'after' | 'off';

export interface CuttingProxyOptions {
  /** Which requests may be cut; every other request is passed on untouched. */
  cut: (request: ProxiedRequest) => boolean;
  when: CutWhen;
  /** How many chosen requests to cut at most, over the proxy's life (default: all of them). */
  times?: number;
}

export interface CuttingProxy {
  url: string;
  /** Can be changed between calls (e.g. `'off'` to let the chosen requests through again). */
  when: CutWhen;
  /** How many of the chosen requests had their connection cut so far. */
  cut(): number;
  close(): Promise<void>;
}

/**
 * An upstream behind a misbehaving network: every request is forwarded to `target` (a URL, or a
 * function giving it at the time of each request, for an upstream started after the proxy),
 * except that the first `times` requests chosen by `cut` lose their connection at the moment
 * `when` says. Either way the caller sees a broken connection, never an HTTP answer.
 */
export async function cuttingProxy(target: string | (() => string), options: CuttingProxyOptions): Promise<CuttingProxy> {
  const times = options.times ?? Infinity;
  const targetUrl = typeof target === 'string' ? () => target : target;
  const state = { when: options.when, cut: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const when = state.when;
      const cutThis =
        when !== 'off' &&
        state.cut < times &&
        options.cut({ method: req.method ?? 'GET', url, path: url.split('?')[0], body: body.toString() });
      if (cutThis && when === 'before') {
        state.cut++;
        res.socket?.destroy();
        return;
      }
      const upstream = http.request(new URL(url, targetUrl()), { method: req.method, headers: req.headers }, (answer) => {
        if (cutThis) {
          state.cut++;
          answer.resume();
          answer.on('end', () => res.socket?.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get when() {
      return state.when;
    },
    set when(when: CutWhen) {
      state.when = when;
    },
    cut: () => state.cut,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** The ledger calls the money tests cut: a move to SUCCEEDED, or an intent creation. */
export const ledgerRequests = {
  succeeded: ({ method, path, body }: ProxiedRequest) =>
    method === 'POST' && path.endsWith('/transition') && body.includes('"toStatus":"SUCCEEDED"'),
  creates: ({ method, path }: ProxiedRequest) => method === 'POST' && path === '/v1/internal/intents',
};

/**
 * A ledger behind a misbehaving network (see `cuttingProxy`): the chosen requests are the moves
 * to SUCCEEDED (the default) or the intent creations (`POST /v1/internal/intents`).
 */
export function cuttingLedgerProxy(
  target: string,
  options: { when: 'before' | 'after'; times?: number; requests?: keyof typeof ledgerRequests },
): Promise<CuttingProxy> {
  return cuttingProxy(target, { cut: ledgerRequests[options.requests ?? 'succeeded'], when: options.when, times: options.times });
}
