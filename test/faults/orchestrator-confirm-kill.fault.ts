/**
 * kill -9 of the orchestrator while public intents are being confirmed
 * (`POST /api/v1/intents/:id/confirm`), then a restart. Each client confirms again, the same
 * request, until a definite answer. Proves: a confirm whose answer the kill swallowed (the ledger
 * may already have committed it) answers SUCCEEDED with the transaction the ledger made, never a
 * second one; every intent is executed exactly once (one ledger intent per key, one transaction
 * per intent, one pair of SMS); a later confirm answers the same body; the ledger invariants hold.
 */
import type { Client } from 'pg';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { type Answer, HttpCaller, LedgerCaller, Tally, untilDefinite } from './support/ledger-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { type PlannedPayment, confirm, inParallel, planPayments, prepareIntent, registerCustomers } from './support/public-load';
import { reportRow } from './support/report';

const CUSTOMERS = 12;
const PAYMENTS = 48;
const CLIENTS = 8;
const KILL_AFTER = 14;
const FUNDING = 50_000;

interface ConfirmOutcome {
  p: PlannedPayment;
  intentId: string;
  fee: number;
  /** the 200 the confirm finally got */
  body?: Record<string, unknown>;
  failed?: string;
  /** tries of this confirm that got no answer (the kill, the restart) */
  cut: number;
}

describe('fault: kill -9 of the orchestrator mid-confirm', () => {
  let platform: FaultPlatform;
  let admin: Client;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['auth', 'ledger-wallets', 'orchestrator'] });
    admin = await platform.pg.admin();
  }, 90_000);
  afterAll(async () => {
    await admin?.end();
    await platform?.close();
  });

  it('answers every retried confirm with the committed transaction, executed once', async () => {
    const orchestrator = platform.service('orchestrator');
    const setup = new Tally();
    const setupGateway = new HttpCaller(orchestrator.url, setup);
    const ledgerAsOps = new LedgerCaller(platform.service('ledger-wallets').url, platform.keyOf('ops'), setup);
    const customers = await registerCustomers(setupGateway, ledgerAsOps, CUSTOMERS, FUNDING);
    const plans = planPayments(customers, PAYMENTS);
    const prepared = await inParallel(plans, 4, (p) => prepareIntent(setupGateway, p));
    const before = await checkInvariants(admin);

    const tally = new Tally();
    const gateway = new HttpCaller(orchestrator.url, tally);
    let crash: Promise<void> | undefined;
    let pidBefore: number | undefined;
    let restartedAt = 0;
    const outcomes: ConfirmOutcome[] = await inParallel(
      plans.map((p, i) => ({ p, ...prepared[i] })),
      CLIENTS,
      async ({ p, intentId, fee }) => {
        let cut = 0;
        const answer: Answer = await untilDefinite(async () => {
          const a = await confirm(gateway, p, intentId);
          if (a.kind === 'none') cut += 1;
          return a;
        }, Date.now() + 75_000);
        if (answer.kind === 'answer' && answer.status === 200) return { p, intentId, fee, body: answer.body, cut };
        return { p, intentId, fee, cut, failed: answer.kind === 'none' ? answer.error : `${answer.status} ${String(answer.body.code)}` };
      },
      (done) => {
        if (done < KILL_AFTER || crash) return;
        pidBefore = orchestrator.pid;
        crash = (async () => {
          await orchestrator.crashAndRestart();
          restartedAt = Date.now();
        })();
      },
    );
    await crash;
    const requests = tally.requests;

    // The ledger's record of each payment: one intent per key, one transaction per intent.
    const { rows } = await admin.query<{
      key: string;
      intent_id: string;
      status: string;
      intents: number;
      txs: number;
      tx: string | null;
      committed_at: Date | null;
    }>(
      `SELECT i.idempotency_key AS key, min(i.id::text) AS intent_id, min(i.status) AS status, count(DISTINCT i.id)::int AS intents,
              count(t.id)::int AS txs, min(t.id::text) AS tx, min(t.completed_at) AS committed_at
         FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.intent_id = i.id
        WHERE i.idempotency_key = ANY($1) GROUP BY i.idempotency_key`,
      [plans.map((p) => p.key)],
    );
    const byKey = new Map(rows.map((r) => [r.key, r]));
    // The orchestrator's own record and the SMS it queued for each payment.
    const records = await admin.query<{ ledger_intent_id: string; stage: string; transaction_id: string | null; sms: number }>(
      `SELECT p.ledger_intent_id, p.stage, p.transaction_id,
              (SELECT count(*)::int FROM orchestrator.sms_outbox s WHERE s.dedupe_key LIKE 'payment:' || p.ledger_intent_id || ':%') AS sms
         FROM orchestrator.payment_intents p WHERE p.idempotency_key = ANY($1)`,
      [plans.map((p) => p.key)],
    );
    const recordOf = new Map(records.rows.map((r) => [r.ledger_intent_id, r]));

    let lost = 0;
    let duplicated = 0;
    let committedBeforeAnswer = 0;
    let replaysMatching = 0;
    const expected = new Map(customers.map((c) => [c.account, FUNDING]));
    for (const o of outcomes) {
      const l = byKey.get(o.p.key);
      const record = recordOf.get(o.intentId);
      if (!l || l.status !== 'SUCCEEDED' || l.txs === 0 || !o.body || o.body.transactionId !== l.tx || record?.stage !== 'SETTLED')
        lost += 1;
      if (!l || l.intents > 1 || l.txs > 1 || l.intent_id !== o.intentId || (record && record.sms !== 2)) duplicated += 1;
      // Cut by the kill although the ledger had already committed it: the answer the retry had to recover.
      if (o.cut > 0 && l?.committed_at && l.committed_at.getTime() < restartedAt) committedBeforeAnswer += 1;
      if (l?.status === 'SUCCEEDED') {
        const charged = o.p.amount + Number(o.body?.fees ?? o.fee);
        expected.set(o.p.payer.account, expected.get(o.p.payer.account)! - charged);
        expected.set(o.p.payee.account, expected.get(o.p.payee.account)! + o.p.amount);
      }
      // The same confirm later: the same committed answer (the same fields; the stored copy may list them in another order).
      const again = await confirm(gateway, o.p, o.intentId);
      if (again.kind === 'answer' && again.status === 200 && canonical(again.body) === canonical(o.body)) replaysMatching += 1;
      else duplicated += 1;
    }
    const balances = await admin.query<{ id: string; balance: string; frozen: string }>(
      `SELECT id, balance::text, frozen_balance::text AS frozen FROM ledger.accounts WHERE id = ANY($1)`,
      [customers.map((c) => c.account)],
    );
    const balanceGaps = balances.rows.filter((r) => Number(r.balance) !== expected.get(r.id) || Number(r.frozen) !== 0).length;
    const invariants = await checkInvariants(admin);

    reportRow({
      case: 'kill -9 orchestrator mid-confirm',
      faults: `kill -9 orchestrator ×${orchestrator.kills} (after ${KILL_AFTER}/${PAYMENTS} confirms, ${CLIENTS} in flight), restart 0.5 s later`,
      requests,
      committed: outcomes.filter((o) => o.body).length,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: lost + balanceGaps,
      duplicated,
      notes: `${outcomes.filter((o) => o.cut > 0).length} confirms cut by the kill, ${committedBeforeAnswer} of them already committed at the ledger, each answered with that transaction on retry; ${replaysMatching}/${PAYMENTS} later confirms identical; errors: ${tally.codeList() || 'none'}`,
    });

    expect(orchestrator.kills).toBe(1);
    expect(orchestrator.pid).not.toBe(pidBefore);
    expect(tally.noAnswer).toBeGreaterThan(0);
    expect(tally.unstable).toEqual([]);
    expect(Object.keys(tally.codes).filter((k) => k.startsWith('500'))).toEqual([]);
    expect(outcomes.filter((o) => !o.body)).toEqual([]);
    expect({ lost, duplicated, balanceGaps, replaysMatching }).toEqual({
      lost: 0,
      duplicated: 0,
      balanceGaps: 0,
      replaysMatching: PAYMENTS,
    });
    expect(invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(invariants.totals).toEqual(before.totals);
  });
});

/** JSON with sorted keys: two answers carrying the same fields compare equal whatever their order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
