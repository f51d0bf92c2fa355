import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DIRECTORY_ROUTES, type MerchantDirectoryEntry, QR_PAYMENT_ROUTES } from '@mm/contracts';
import { allowedCallerKey, callerKey } from '../../../../test/support/test-env';

/**
 * An HTTP server implementing the orchestrator's internal contracts partners calls, for the partners
 * tests that run without the orchestrator: the merchant directory (libs/contracts directory.ts), and
 * the QR payments question (qr-payments.ts), relayed as the orchestrator does to the real ledger when
 * the test runs one (`ledgerUrl`), else answered "nothing paid" (there is no ledger to pay anything).
 * The journey tests use the real orchestrator.
 */
export class DirectoryStub {
  readonly merchants = new Map<string, MerchantDirectoryEntry>();
  private server?: http.Server;
  url = '';
  /** calls received, by path (to prove a lookup happened or not) */
  calls: string[] = [];
  /** the real ledger the QR payments question is relayed to, when the test runs one */
  ledgerUrl?: string;

  add(phone: string, overrides: Partial<MerchantDirectoryEntry> = {}): MerchantDirectoryEntry {
    const entry: MerchantDirectoryEntry = {
      merchantId: randomUUID(),
      businessName: `Shop ${phone}`,
      phone,
      status: 'active',
      walletId: randomUUID(),
      accounts: { XAF: randomUUID(), XOF: randomUUID() },
      ...overrides,
    };
    this.merchants.set(entry.merchantId, entry);
    return entry;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://stub');
      this.calls.push(url.pathname);
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      // the orchestrator's directory answers partners' credential only
      if (req.headers['x-service-key'] !== callerKey('partners'))
        return send(401, { code: 'INVALID_SERVICE_CREDENTIALS', message: 'no', requestId: randomUUID() });
      if (url.pathname === QR_PAYMENT_ROUTES.orchestrator && req.method === 'POST') {
        // as the orchestrator answers when the ledger cannot be reached
        void this.qrPayments(req).then(
          ([status, body]) => send(status, body),
          () => send(502, { code: 'UPSTREAM_UNAVAILABLE', message: 'ledger unreachable', requestId: randomUUID() }),
        );
        return;
      }
      let found: MerchantDirectoryEntry | undefined;
      if (url.pathname === DIRECTORY_ROUTES.merchantByPhone) {
        found = [...this.merchants.values()].find((m) => m.phone === url.searchParams.get('phone'));
      } else if (url.pathname.startsWith(`${DIRECTORY_ROUTES.merchantById}/`)) {
        found = this.merchants.get(url.pathname.slice(DIRECTORY_ROUTES.merchantById.length + 1));
      }
      if (!found) return send(404, { code: 'MERCHANT_NOT_FOUND', message: 'Merchant not found', requestId: randomUUID() });
      return send(200, found);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async qrPayments(req: http.IncomingMessage): Promise<[number, unknown]> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!this.ledgerUrl) return [200, { paid: [], open: [], payments: [] }];
    const res = await fetch(`${this.ledgerUrl}${QR_PAYMENT_ROUTES.ledger}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-key': allowedCallerKey('ledger-wallets', 'POST', QR_PAYMENT_ROUTES.ledger),
      },
      body: Buffer.concat(chunks),
    });
    return [res.status, await res.json()];
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
