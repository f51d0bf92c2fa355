/**
 * A slow upstream, made by the test rather than by a hook in the service: an HTTP proxy on loopback
 * between a caller (the orchestrator's LEDGER_URL) and a service (the ledger). Each request is
 * forwarded at once, so the service does its work and commits; the answer is held back as long as
 * `delay` says for that request. A caller that gave up meanwhile (its timeout) never gets it, but the
 * upstream request is never cut: what the service did stays done, as with a slow network.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldRequest {
  method: string;
  /** the path with its query */
  path: string;
  headers: IncomingHttpHeaders;
}

export interface SlowProxy {
  url: string;
  /** where requests go (set once the service is up; until then the proxy answers 503) */
  target: string;
  /** milliseconds to hold the answer of this request back (0: pass it on at once) */
  delay: (req: HeldRequest) => number;
  /** answers held back, and those whose caller had gone when they were released */
  held: number;
  dropped: number;
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), and the length we set ourselves. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'content-length',
]);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(headers).filter(([k, v]) => v !== undefined && !HOP_BY_HOP.has(k))) as Record<
    string,
    string | string[]
  >;
}

export async function startSlowProxy(): Promise<SlowProxy> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const proxy = { target: '', delay: () => 0, held: 0, dropped: 0 } as unknown as SlowProxy;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!proxy.target) return void res.writeHead(503).end();
      const held: HeldRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
      const wait = proxy.delay(held);
      const body = Buffer.concat(chunks);
      const target = new URL(held.path, proxy.target);
      const upstream = http.request(
        target,
        { method: held.method, agent, headers: { ...endToEnd(req.headers), host: target.host, 'content-length': String(body.length) } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const release = () => {
              if (res.destroyed || res.socket?.destroyed) {
                proxy.dropped += 1;
                return;
              }
              const payload = Buffer.concat(parts);
              res.writeHead(answer.statusCode ?? 502, { ...endToEnd(answer.headers), 'content-length': String(payload.length) });
              res.end(payload);
            };
            if (wait > 0) {
              proxy.held += 1;
              setTimeout(release, wait);
            } else release();
          });
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    agent.destroy();
  };
  return proxy;
}
