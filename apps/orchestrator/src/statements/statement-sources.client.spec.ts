import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OrchestratorConfig } from '../orchestrator.config';
import { StatementSourcesClient } from './statement-sources.client';

/** A stand-in ledger on loopback: answers each request with the next reply (status, body), counting them. */
async function ledger(replies: Array<[number, unknown]>): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    const [status, body] = replies[Math.min(hits, replies.length - 1)];
    hits += 1;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

function client(url: string): StatementSourcesClient {
  return new StatementSourcesClient({
    LEDGER_URL: [url],
    PARTNERS_URL: [url],
    INTERNAL_SERVICE_KEY: 'k'.repeat(32),
    LEDGER_TIMEOUT_MS: 2_000,
    UPSTREAM_TIMEOUT_MS: 2_000,
    LEDGER_RETRY_ATTEMPTS: 3,
    LEDGER_RETRY_BASE_MS: 1,
  } as OrchestratorConfig);
}

const statement = { accountId: 'a', currency: 'XAF', from: 'f', to: 't', openingBalance: 0, closingBalance: 0, final: true, lines: [] };

describe("StatementSourcesClient.account: the ledger's statement read", () => {
  let stub: Awaited<ReturnType<typeof ledger>>;
  afterEach(() => new Promise((resolve) => stub.server.close(resolve)));

  it('is not sent again when the ledger cancelled it after its time limit', async () => {
    stub = await ledger([[503, { code: 'SETTLEMENT_STATEMENT_TIMEOUT', message: 'cancelled' }]]);
    await expect(client(stub.url).account('a', 'f', 't')).rejects.toMatchObject({ code: 'SETTLEMENT_STATEMENT_TIMEOUT', status: 503 });
    expect(stub.hits()).toBe(1);
  });

  it('is not sent again after an internal error of the ledger (it may still be reading)', async () => {
    stub = await ledger([[500, { code: 'INTERNAL_ERROR', message: 'x' }]]);
    await expect(client(stub.url).account('a', 'f', 't')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(stub.hits()).toBe(1);
  });

  it('is sent again when the ledger refused it before starting (all statement connections busy)', async () => {
    stub = await ledger([
      [503, { code: 'SERVICE_UNAVAILABLE', message: 'busy' }],
      [200, statement],
    ]);
    await expect(client(stub.url).account('a', 'f', 't')).resolves.toEqual(statement);
    expect(stub.hits()).toBe(2);
  });
});
