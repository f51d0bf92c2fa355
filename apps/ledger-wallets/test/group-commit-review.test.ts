import { randomUUID } from 'node:crypto';
import { type Server, type Socket, connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { uuidLockKey } from '../src/db/lock-keys';
import { type Harness, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';
import { metricSum } from './observe';

/*
 * Review of group commit (docs/ledger.md "Locks, isolation and retries"): what a confirm answers
 * when the database's reply to a batch is lost AFTER the batch committed. The connection carrying
 * the batch is cut by a TCP proxy between the ledger and PostgreSQL (a network fault, the database
 * itself untouched) once the call of the batch is answered and before the answer to its COMMIT
 * reaches the ledger: PostgreSQL has committed every confirm of the batch with its idempotent
 * answer, the ledger only sees a broken connection.
 *
 * A confirm whose outcome is unknown must get a retryable answer (5xx), as it does when it runs
 * alone: its client then sends it again with the same key and gets the committed answer. It must
 * never get a definitive refusal for a payment that happened (a 4xx makes the orchestrator treat
 * the payment as refused and give the limit hold back), nor two different answers for one key.
 */

const GROUPED = 6;

/** A TCP proxy to PostgreSQL that can swallow the reply to the next group commit's batch and cut its connection. */
interface CuttingProxy {
  port: number;
  /** cut the connection of the next batch (its call of `ledger.execute_confirm_batch`): the call answered, its COMMIT's answer lost */
  arm(how: 'close' | 'reset'): void;
  cuts: number;
  close(): Promise<void>;
}

async function startCuttingProxy(target: { host: string; port: number }): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  let armed = false;
  // 'close': a FIN, pg reports the connection ended; 'reset': an RST, pg reports ECONNRESET.
  let how: 'close' | 'reset' = 'close';
  const proxy = { cuts: 0 } as CuttingProxy;
  // noDelay both ways: with Nagle's algorithm a relayed small write waits for the peer's delayed ACK
  // (about 40 ms), and the fixtures' round trips through the proxy took a second per payer.
  const server: Server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ port: target.port, host: target.host, noDelay: true });
    sockets.add(client).add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut).on('close', cut);
    upstream.on('error', cut).on('close', cut);
    // Since the last Sync or simple query: binds of the prepared `ledger.execute_confirm_batch` call,
    // and statements executed.
    let calls = 0;
    let executed = 0;
    // Once the batch is seen (its opening and call, then the COMMIT): how many of the server's
    // CommandComplete go on (all before the COMMIT's); what comes after is held back, then the cut.
    let passing = -1;
    let started = false;
    let fromClient = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      fromClient = Buffer.concat([fromClient, chunk]);
      for (;;) {
        // The frontend's messages: the startup message (no type byte), then type + int32 length each.
        if (!started) {
          if (fromClient.length < 4 || fromClient.length < fromClient.readInt32BE(0)) break;
          fromClient = fromClient.subarray(fromClient.readInt32BE(0));
          started = true;
          continue;
        }
        if (fromClient.length < 5 || fromClient.length < 1 + fromClient.readInt32BE(1)) break;
        const message = fromClient.subarray(0, 1 + fromClient.readInt32BE(1));
        fromClient = fromClient.subarray(message.length);
        const type = String.fromCharCode(message[0]);
        // Bind: portal name, then statement name, each NUL-terminated.
        if (type === 'B') {
          const portalEnd = message.indexOf(0, 5);
          if (message.toString('utf8', portalEnd + 1, message.indexOf(0, portalEnd + 1)) === 'ledger_execute_confirm_batch') calls += 1;
        }
        // Parse: statement name, then the query text, each NUL-terminated. A group commit's batch:
        // the opening, the prepared call with every confirm, then its COMMIT, in one exchange.
        if (type === 'P' && armed && calls >= 1) {
          const nameEnd = message.indexOf(0, 5);
          if (message.toString('utf8', nameEnd + 1, message.indexOf(0, nameEnd + 1)) === 'COMMIT') {
            armed = false;
            passing = executed;
          }
        }
        if (type === 'E') executed += 1;
        if (type === 'S' || type === 'Q') {
          calls = 0;
          executed = 0;
        }
      }
      // Decided before the chunk goes on: the answers to that batch cannot have started yet.
      upstream.write(chunk);
    });
    let fromServer = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      // Message by message: every answer goes on, the call's included, except the COMMIT's once the
      // batch is seen, held back until its ReadyForQuery ('Z'). By then PostgreSQL has committed;
      // the ledger has seen every confirm answered, never the COMMIT. Then the connection dies.
      fromServer = Buffer.concat([fromServer, chunk]);
      while (fromServer.length >= 5 && fromServer.length >= 1 + fromServer.readInt32BE(1)) {
        const message = fromServer.subarray(0, 1 + fromServer.readInt32BE(1));
        fromServer = fromServer.subarray(message.length);
        if (passing !== 0) client.write(message);
        if (passing > 0 && message[0] === 0x43)
          passing -= 1; // CommandComplete of a statement before the COMMIT
        else if (passing === 0 && message[0] === 0x5a) {
          proxy.cuts += 1;
          upstream.pause();
          // Once what went on has reached the ledger (flushed, then read by its idle event loop;
          // an RST would discard it), the connection dies.
          client.write(Buffer.alloc(0), () =>
            setTimeout(() => {
              if (how === 'reset') client.resetAndDestroy();
              cut();
            }, 200),
          );
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.arm = (cutHow) => {
    armed = true;
    how = cutHow;
  };
  proxy.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}

/** One ledger whose database connections all go through the proxy (same database, same roles). */
async function startProxiedLedger(): Promise<{ h: Harness; proxy: CuttingProxy; metric(name: string): Promise<number> }> {
  let proxy: CuttingProxy | undefined;
  const h = await startLedger(
    {
      // the confirms wait on the merchant lock the test holds: every one keeps its connection meanwhile
      DB_POOL_SIZE: String(GROUPED + 6),
      LEDGER_LOCK_TIMEOUT_MS: '30000',
    },
    {
      async databaseUrl(direct) {
        const url = new URL(direct);
        proxy = await startCuttingProxy({ host: url.hostname, port: Number(url.port || 5432) });
        url.hostname = '127.0.0.1';
        url.port = String(proxy.port);
        return url.toString();
      },
    },
  );
  const close = h.close;
  h.close = async () => {
    await close();
    await proxy!.close();
  };
  const metric = (name: string) => metricSum(h.app.url, name);
  return { h, proxy: proxy!, metric };
}

describe('group commit review: the reply to a committed batch is lost', () => {
  let h: Harness;
  let proxy: CuttingProxy;
  let metric: (name: string) => Promise<number>;

  beforeAll(async () => {
    ({ h, proxy, metric } = await startProxiedLedger());
  });
  afterAll(() => h?.close());

  it.each([
    ['closed (pg: the connection ended)', 'close'],
    ['reset (pg: ECONNRESET)', 'reset'],
  ] as const)(
    'never answers a committed confirm with a definitive refusal, and gives each key one answer: connection %s',
    async (_label, how) => {
      const wallet = await h.call('POST', '/v1/internal/wallets', {
        ownerType: 'MERCHANT',
        ownerId: randomUUID(),
        currencies: ['XAF'],
      });
      const merchant = wallet.body.accounts.find((a: { accountType: string }) => !a.accountType.includes('commission')).id as string;
      const before = await invariants(h.admin);

      const payers: { id: string; source: string }[] = [];
      for (let k = 0; k < GROUPED + 2; k++) {
        const source = await fundedAccount(h, 1_000);
        const created = await h.call('POST', '/v1/internal/intents', intentBody(source, merchant, 100));
        expect(created.status).toBe(201);
        const id = created.body.intentId as string;
        const proof = await h.consent.sign({ sub: 'user-1', intentId: id, step: 'PIN' });
        const pin = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
          toStatus: 'PIN_VERIFIED',
          actor: { id: 'user-1' },
          consentProof: proof,
        });
        expect(pin.status).toBe(200);
        payers.push({ id, source });
      }
      const confirm = (p: { id: string; source: string }) =>
        h.call(
          'POST',
          `/v1/internal/intents/${p.id}/transition`,
          { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(p.source, merchant, 100) },
          { 'x-idempotency-key': `confirm:${p.id}` },
        );

      // Holding the merchant's lock: two confirms run alone and wait on it, the other GROUPED queue
      // behind them and then commit as one batch, whose reply the proxy swallows.
      const merchantKey = uuidLockKey(merchant).toString();
      await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [merchantKey]);
      const answers = payers.map(confirm);
      const deadline = Date.now() + 20_000;
      while ((await metric('ledger_group_commit_waiting')) < GROUPED) {
        if (Date.now() > deadline) throw new Error('the confirms did not queue behind the merchant');
        await new Promise((r) => setTimeout(r, 50));
      }
      const cuts = proxy.cuts;
      proxy.arm(how);
      await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [merchantKey]);
      const first = await Promise.all(answers);
      expect(proxy.cuts).toBe(cuts + 1);

      // PostgreSQL committed the batch: every confirm executed once, with its answer stored.
      const { rows } = await h.admin.query<{ id: string; status: string; txs: number }>(
        `SELECT i.id, i.status, count(t.id)::int AS txs FROM ledger.transaction_intents i
         LEFT JOIN ledger.transactions t ON t.intent_id = i.id WHERE i.id = ANY($1::uuid[]) GROUP BY i.id`,
        [payers.map((p) => p.id)],
      );
      expect(rows.filter((r) => r.status !== 'SUCCEEDED' || r.txs !== 1)).toEqual([]);
      const stored = await h.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.idempotency_keys WHERE key = ANY($1)`, [
        payers.map((p) => `confirm:${p.id}`),
      ]);
      expect(stored.rows[0].n).toBe(GROUPED + 2);

      // The retry with the same key: the committed answer.
      const again = await Promise.all(payers.map(confirm));
      again.forEach((res, k) => {
        expect(res.status).toBe(200);
        expect(res.headers.get('idempotent-replayed')).toBe('true');
        expect(res.body).toMatchObject({ intentId: payers[k].id, status: 'SUCCEEDED' });
      });

      // What each client was told the first time: the payment (200), or "unknown, try again" (5xx).
      // A 4xx here is a definitive refusal of a payment that committed, and a second answer for its key.
      const told = first.map((res, k) => ({ intent: payers[k].id, status: res.status, code: res.body?.code as string | undefined }));
      expect(told.filter((t) => t.status >= 400 && t.status < 500)).toEqual([]);
      // The batch's confirms could not know: "unknown, retry with your key", each of them.
      expect(told.filter((t) => t.status === 503 && t.code === 'SERVICE_UNAVAILABLE')).toHaveLength(GROUPED);
      for (const [k, res] of first.entries()) if (res.status === 200) expect(res.body).toEqual(again[k].body);

      const after = await invariants(h.admin);
      expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
      expect(after.totals).toEqual(before.totals);
    },
    60_000,
  );
});
