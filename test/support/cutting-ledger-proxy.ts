import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** How many of the chosen requests (moves to SUCCEEDED, or creations) had their connection cut so far. */
  cut(): number;
  close(): Promise<void>;
}

/**
 * A ledger behind a misbehaving network: every request is forwarded to the real ledger at
 * `target`, except that the first `times` of the chosen requests have their connection cut —
 * `before` the ledger sees them (nothing committed), or `after` it answered (committed, the
 * answer lost, as with a timeout). Either way the caller sees a broken connection. The chosen
 * requests (`requests`) are the moves to SUCCEEDED (the default) or the intent creations
 * (`POST /v1/internal/intents`).
 */
export async function cuttingLedgerProxy(
  target: string,
  options: { when: 'before' | 'after'; times?: number; requests?: 'succeeded' | 'creates' },
): Promise<CuttingProxy> {
  const times = options.times ?? Infinity;
  const chosen = (method: string | undefined, path: string, body: string) =>
    method === 'POST' &&
    (options.requests === 'creates'
      ? path === '/v1/internal/intents'
      : path.endsWith('/transition') && body.includes('"toStatus":"SUCCEEDED"'));
  let cut = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const cutThis = chosen(req.method, (req.url ?? '/').split('?')[0], body.toString()) && cut < times;
      if (cutThis && options.when === 'before') {
        cut++;
        res.socket?.destroy();
        return;
      }
      const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        if (cutThis) {
          cut++;
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
    cut: () => cut,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
