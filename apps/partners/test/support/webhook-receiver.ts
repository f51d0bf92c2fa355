import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@mm/webhook-signature';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { event: string; id: string; createdAt: string; data: Record<string, unknown> };
  /** the signature checked against the secrets known when it arrived */
  verified: boolean;
}

/**
 * A partner's receiver on loopback: verifies each delivery with libs/webhook-signature (the
 * secrets are set once the integration is created), records it, answers 200.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  secrets: string[] = [];
  private server?: http.Server;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const verified = verify(req.headers['svc-signature'], rawBody, this.secrets).ok;
        this.received.push({ headers: req.headers, rawBody, body: JSON.parse(rawBody), verified });
        res.writeHead(verified ? 200 : 400).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Waits until a verified delivery matches, or fails after `timeoutMs`. */
  async waitFor(match: (w: ReceivedWebhook) => boolean, timeoutMs = 10_000): Promise<ReceivedWebhook> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((w) => w.verified && match(w));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching webhook within ${timeoutMs} ms (received ${this.received.length})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
