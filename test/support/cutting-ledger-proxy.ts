import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** How many moves to SUCCEEDED had their connection cut so far. */
  cut(): number;
  close(): Promise<void>;
}

/**
 * A ledger behind a misbehaving network: every request is forwarded to the real ledger at
 * `target`, except that the first `times` moves to SUCCEEDED have their connection cut —
 * `before` the ledger sees them (nothing committed), or `after` it answered (committed, the
 * answer lost, as with a timeout). Either way the caller sees a broken connection.
 */
export async function cuttingLedgerProxy(target: string, options: { when: 'before' | 'after'; times?: number }): Promise<CuttingProxy> {
  const times = options.times ?? Infinity;
  let cut = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const succeeding =
        req.method === 'POST' && req.url?.endsWith('/transition') === true && body.toString().includes('"toStatus":"SUCCEEDED"');
      const cutThis = succeeding && cut < times;
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
