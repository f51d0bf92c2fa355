import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export type Script = (
  index: number,
  req: Received,
) => { status: number; delayMs?: number; body?: string; headers?: Record<string, string> };

/** A loopback HTTP receiver that records every request (raw bytes) and answers per a script. */
export class RecordingReceiver {
  readonly received: Received[] = [];
  private server?: http.Server;
  port = 0;

  constructor(private script: Script = () => ({ status: 200 })) {}

  setScript(script: Script): void {
    this.script = script;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const entry: Received = { at: Date.now(), headers: req.headers, rawBody: Buffer.concat(chunks) };
        const index = this.received.push(entry) - 1;
        const { status, delayMs, body, headers } = this.script(index, entry);
        const reply = () => {
          if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body ?? `status ${status}`);
        };
        if (delayMs) setTimeout(reply, delayMs).unref();
        else reply();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A loopback port nobody listens on (bound, read, released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
