/**
 * A slow upstream: the ledger answers after the orchestrator stopped waiting (its LEDGER_TIMEOUT_MS,
 * every try), first on intent creation, then on confirmation. The ledger does the work each time;
 * only its answer is late (a proxy of the test holds it back). Proves: the client gets 504 with the
 * catalogue's UPSTREAM_TIMEOUT, never a hang or a raw error; the same request again (the same
 * idempotencyKey for a create, the same intent for a confirm) returns what the ledger committed —
 * the same intent, the same transaction — and nothing was executed twice.
 */
import type { Client } from 'pg';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { type Answer, HttpCaller, LedgerCaller, Tally, untilDefinite } from './support/ledger-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { PIN, type PlannedPayment, bearer, confirm, createBody, planPayments, registerCustomers } from './support/public-load';
import { reportRow } from './support/report';
import { type SlowProxy, startSlowProxy } from './support/slow-proxy';
import { waitUntil } from './support/webhook-load';

const CUSTOMERS = 8;
const FUNDING = 50_000;
/** the orchestrator waits 2 s per try, two tries; the ledger's answers come 4.5 s late, after each try gave up */
const LEDGER_TIMEOUT_MS = 2_000;
const HOLD_MS = 4_500;

describe('fault: the ledger answers after the orchestrator’s timeout', () => {
  let platform: FaultPlatform;
  let proxy: SlowProxy;
  let admin: Client;

  beforeAll(async () => {
    proxy = await startSlowProxy();
    platform = await startFaultPlatform({
      services: ['auth', 'ledger-wallets', 'orchestrator'],
      env: {
        orchestrator: {
          LEDGER_URL: proxy.url,
          LEDGER_TIMEOUT_MS: String(LEDGER_TIMEOUT_MS),
          LEDGER_RETRY_ATTEMPTS: '2',
          LEDGER_RETRY_BASE_MS: '100',
        },
      },
    });
    proxy.target = platform.service('ledger-wallets').url;
    admin = await platform.pg.admin();
  }, 90_000);
  afterAll(async () => {
    await admin?.end();
    await platform?.close();
    await proxy?.close();
  });

  it('answers 504 UPSTREAM_TIMEOUT, and the same request again returns the committed intent and transaction, once', async () => {
    const orchestrator = platform.service('orchestrator');
    const setup = new Tally();
    const ledgerAsOps = new LedgerCaller(platform.service('ledger-wallets').url, platform.keyOf('ops'), setup);
    const customers = await registerCustomers(new HttpCaller(orchestrator.url, setup), ledgerAsOps, CUSTOMERS, FUNDING);
    const plans = planPayments(customers, CUSTOMERS);
    const before = await checkInvariants(admin);
    const tally = new Tally();
    const gateway = new HttpCaller(orchestrator.url, tally);
    const ledgerRows = () => ledgerState(admin, plans);

    // 1. Creation: the ledger makes the intent, its answer comes too late for both tries.
    proxy.delay = (r) => (r.method === 'POST' && r.path === '/v1/internal/intents' ? HOLD_MS : 0);
    const firstCreates = await Promise.all(plans.map((p) => gateway.call('POST', '/api/v1/intents', createBody(p), bearer(p.payer.token))));
    await waitUntil('the ledger to hold every intent', async () => (await ledgerRows()).size === plans.length, 15_000);
    proxy.delay = () => 0;
    const retriedCreates = await Promise.all(
      plans.map((p) => gateway.call('POST', '/api/v1/intents', createBody(p), bearer(p.payer.token))),
    );
    const created = await ledgerRows();
    const intentIds = retriedCreates.map((a) => (a.kind === 'answer' ? String(a.body.intentId) : ''));
    for (const [i, p] of plans.entries()) {
      const pinned = await gateway.call('POST', `/api/v1/intents/${intentIds[i]}/verify-pin`, { pin: PIN }, bearer(p.payer.token));
      if (pinned.kind !== 'answer' || pinned.status !== 200) throw new Error(`verify-pin: ${JSON.stringify(pinned)}`);
    }

    // 2. Confirmation: the ledger executes it, its answer comes too late for both tries.
    proxy.delay = (r) => (r.method === 'POST' && String(r.headers['x-idempotency-key'] ?? '').startsWith('confirm:') ? HOLD_MS : 0);
    const firstConfirms = await Promise.all(plans.map((p, i) => confirm(gateway, p, intentIds[i])));
    await waitUntil(
      'the ledger to execute every payment',
      async () => [...(await ledgerRows()).values()].every((r) => r.txs === 1),
      15_000,
    );
    proxy.delay = () => 0;
    const retriedConfirms = await Promise.all(
      plans.map((p, i) => untilDefinite(() => confirm(gateway, p, intentIds[i]), Date.now() + 30_000)),
    );
    const laterConfirms = await Promise.all(plans.map((p, i) => confirm(gateway, p, intentIds[i])));
    const executed = await ledgerRows();

    const timedOut = (a: Answer) => a.kind === 'answer' && a.status === 504 && a.body.code === 'UPSTREAM_TIMEOUT';
    let lost = 0;
    let duplicated = 0;
    const expected = new Map(customers.map((c) => [c.account, FUNDING]));
    for (const [i, p] of plans.entries()) {
      const atCreate = created.get(p.key);
      const l = executed.get(p.key);
      const retried = retriedCreates[i];
      const done = retriedConfirms[i];
      // the retried create names the intent the ledger made under the key, as a replay
      if (retried.kind !== 'answer' || retried.status !== 201 || !retried.replayed || retried.body.intentId !== atCreate?.intentId)
        lost += 1;
      if (done.kind !== 'answer' || done.status !== 200 || done.body.status !== 'SUCCEEDED' || done.body.transactionId !== l?.tx) lost += 1;
      if (!l || l.intents !== 1 || l.txs !== 1) duplicated += 1;
      const later = laterConfirms[i];
      if (later.kind !== 'answer' || done.kind !== 'answer' || later.status !== 200 || later.body.transactionId !== done.body.transactionId)
        duplicated += 1;
      if (l?.txs === 1 && done.kind === 'answer') {
        expected.set(p.payer.account, expected.get(p.payer.account)! - p.amount - Number(done.body.fees));
        expected.set(p.payee.account, expected.get(p.payee.account)! + p.amount);
      }
    }
    const balances = await admin.query<{ id: string; balance: string; frozen: string }>(
      `SELECT id, balance::text, frozen_balance::text AS frozen FROM ledger.accounts WHERE id = ANY($1)`,
      [customers.map((c) => c.account)],
    );
    const balanceGaps = balances.rows.filter((r) => Number(r.balance) !== expected.get(r.id) || Number(r.frozen) !== 0).length;
    const records = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orchestrator.payment_intents p
        WHERE p.idempotency_key = ANY($1) AND p.stage = 'SETTLED'
          AND (SELECT count(*) FROM orchestrator.sms_outbox s WHERE s.dedupe_key LIKE 'payment:' || p.ledger_intent_id || ':%') = 2`,
      [plans.map((p) => p.key)],
    );
    const invariants = await checkInvariants(admin);
    const timeouts = [...firstCreates, ...firstConfirms].filter(timedOut).length;
    const extraTries = tally.requests - 6 * plans.length;

    reportRow({
      case: 'slow ledger (answer after the timeout)',
      faults: `ledger answers held ${HOLD_MS / 1000} s (orchestrator waits ${LEDGER_TIMEOUT_MS / 1000} s × 2 tries) on ${plans.length} creates and ${plans.length} confirms`,
      requests: tally.requests,
      committed: [...executed.values()].filter((r) => r.txs === 1).length,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: lost + balanceGaps,
      duplicated,
      notes: `${timeouts}/${2 * plans.length} first tries answered 504 UPSTREAM_TIMEOUT; ${proxy.held} ledger answers held back, ${proxy.dropped} answers arrived after the orchestrator had stopped waiting; the same requests again (${extraTries} extra tries) returned the committed intent and transaction; errors: ${tally.codeList() || 'none'}`,
    });

    // Every first try ran out of time and said so with the catalogue's code; nothing else went wrong.
    expect(firstCreates.filter((a) => !timedOut(a))).toEqual([]);
    expect(firstConfirms.filter((a) => !timedOut(a))).toEqual([]);
    expect(tally.unstable).toEqual([]);
    // A retry may itself run out of time on a busy machine: the same stable code, then an answer.
    expect(Object.keys(tally.codes)).toEqual(['504 UPSTREAM_TIMEOUT']);
    expect(proxy.dropped).toBeGreaterThan(0);
    expect({ lost, duplicated, balanceGaps }).toEqual({ lost: 0, duplicated: 0, balanceGaps: 0 });
    expect(records.rows[0].n).toBe(plans.length);
    expect(invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(invariants.totals).toEqual(before.totals);
  });
});

/** The ledger's intents under the payments' keys: how many per key, and their transactions. */
async function ledgerState(admin: Client, plans: PlannedPayment[]) {
  const { rows } = await admin.query<{ key: string; intent_id: string; intents: number; txs: number; tx: string | null }>(
    `SELECT i.idempotency_key AS key, min(i.id::text) AS intent_id, count(DISTINCT i.id)::int AS intents,
            count(t.id)::int AS txs, min(t.id::text) AS tx
       FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.intent_id = i.id
      WHERE i.idempotency_key = ANY($1) GROUP BY i.idempotency_key`,
    [plans.map((p) => p.key)],
  );
  return new Map(rows.map((r) => [r.key, { intentId: r.intent_id, intents: r.intents, txs: r.txs, tx: r.tx }]));
}
