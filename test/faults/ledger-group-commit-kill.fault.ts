/**
 * kill -9 of ledger-wallets while confirms to ONE hot merchant account are being group-committed
 * (docs/ledger.md "Locks, isolation and retries"): 32 clients confirm at once, every payment
 * crediting the same merchant and paying its fee to the same FEE_COLLECTION account, so the confirms
 * queue behind each other and commit several per transaction. The kill lands in the middle of the burst,
 * with batches queued, running and committed but not yet answered. Each client then does what the
 * orchestrator does: the same confirm again, with the same X-Idempotency-Key, until a definite answer.
 * Proves: batches larger than one really formed before the kill; every intent ends SUCCEEDED with
 * exactly one transaction; every confirm gets its 200 in the end, and the committed answer is the
 * one a later retry replays; the merchant and the fee account hold exactly the committed money; the
 * ledger invariants hold.
 */
import { randomUUID } from 'node:crypto';
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { metricSum, timingNotes } from '../../apps/ledger-wallets/test/observe';
import { type Answer, LedgerCaller, Tally, createFundedAccount, frozenMismatches, untilDefinite } from './support/ledger-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { reportRow } from './support/report';
import { waitUntil } from './support/webhook-load';

const PAYERS = 32;
const PAYMENTS = 192;
/** concurrent confirms: all of them on the one merchant */
const CLIENTS = 32;
/** confirms answered before the kill (a third of the burst) */
const KILL_AFTER = 64;
const FEE = 10;
const ACTOR = { id: 'fault-user', ip: '10.0.0.1', userAgent: 'fault-test' };

interface Payment {
  n: number;
  payer: string;
  amount: number;
  intentId: string;
  confirmKey: string;
  /** the body of the 200 the confirm finally got */
  committed?: Record<string, unknown>;
  /** the last answer when it never got a 200 */
  unfinished?: string;
  /** how many confirms shared the transaction of the answer (Server-Timing `group`; absent on a replay) */
  group?: number;
  /** the 200 arrived before the kill */
  answeredBeforeKill?: boolean;
  /** a confirm that got no answer was answered later from the stored response: its batch committed, the answer was lost */
  replayedAfterCut?: boolean;
}

/** How many confirms shared the answer's transaction (`group` of the ledger's Server-Timing). */
function groupOf(answer: Answer): number | undefined {
  return answer.kind === 'answer' ? timingNotes(answer.headers.get('server-timing')).group : undefined;
}

async function inBatches<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

describe('fault: kill -9 of ledger-wallets while confirms to one hot merchant are group-committed', () => {
  let platform: FaultPlatform;

  beforeAll(async () => {
    platform = await startFaultPlatform({
      services: ['ledger-wallets'],
      // Every concurrent confirm keeps its pooled connection while it waits in the merchant's queue
      // (as it would waiting on the lock): with the default 6 no batch could exceed 5.
      env: { 'ledger-wallets': { DB_POOL_SIZE: String(CLIENTS + 8) } },
    });
  }, 60_000);
  afterAll(() => platform?.close());

  it('answers every confirm of the burst with its committed result, each executed exactly once', async () => {
    const ledger = platform.service('ledger-wallets');
    const tally = new Tally();
    const caller = new LedgerCaller(ledger.url, platform.keyOf('orchestrator'), tally);
    const setupDeadline = Date.now() + 60_000;
    const must = async (what: string, step: () => Promise<Answer>, status: number) => {
      const a = await untilDefinite(step, setupDeadline);
      if (a.kind !== 'answer' || a.status !== status) throw new Error(`${what}: ${JSON.stringify(a)}`);
      return a.body;
    };

    // The hot merchant, the fee account every confirm also credits, and the payers.
    const merchantWallet = await must(
      'merchant wallet',
      () => caller.call('POST', '/v1/internal/wallets', { ownerType: 'MERCHANT', ownerId: randomUUID(), currencies: ['XAF'] }),
      201,
    );
    const merchant = (merchantWallet.accounts as { id: string; accountType: string }[]).find(
      (a) => !a.accountType.includes('commission'),
    )!.id;
    const technical = (await must(
      'technical accounts',
      () => caller.call('GET', '/v1/internal/technical-accounts?currency=XAF'),
      200,
    )) as unknown as {
      id: string;
      accountType: string;
    }[];
    const fees = technical.find((a) => a.accountType === 'fee_collection')!.id;
    const payers: string[] = [];
    for (let k = 0; k < PAYERS; k++) payers.push(await createFundedAccount(caller, 100_000, platform.keyOf('ops')));

    // Every payment created and PIN-verified before the burst: the burst is confirms only.
    const payments: Payment[] = Array.from({ length: PAYMENTS }, (_, n) => ({
      n,
      payer: payers[n % PAYERS],
      amount: 100 + (n % 9) * 25,
      intentId: '',
      confirmKey: '',
    }));
    await inBatches(payments, 8, async (p) => {
      const created = await must(
        'create',
        () =>
          caller.call('POST', '/v1/internal/intents', {
            idempotencyKey: randomUUID(),
            type: 'TRANSFER',
            sourceAccountId: p.payer,
            destinationAccountId: merchant,
            amount: p.amount,
            currency: 'XAF',
            actor: ACTOR,
          }),
        201,
      );
      p.intentId = String(created.intentId);
      // The orchestrator's own key for a confirm.
      p.confirmKey = `confirm:${p.intentId}`;
      await must(
        'pin',
        async () =>
          caller.call('POST', `/v1/internal/intents/${p.intentId}/transition`, {
            toStatus: 'PIN_VERIFIED',
            actor: { id: ACTOR.id },
            consentProof: await platform.signer.sign({ sub: ACTOR.id, intentId: p.intentId, step: 'PIN' }),
          }),
        200,
      );
    });

    const admin = await platform.pg.admin();
    const before = await checkInvariants(admin);
    const balance = async (id: string) =>
      Number((await admin.query<{ b: string }>(`SELECT balance::text AS b FROM ledger.accounts WHERE id = $1`, [id])).rows[0].b);
    const feesBefore = await balance(fees);
    const setupRequests = tally.requests;
    const setupNoAnswer = tally.noAnswer;

    // The burst: CLIENTS confirms always in flight, every one on the merchant and the fee account.
    const confirmBody = (p: Payment) => ({
      toStatus: 'SUCCEEDED',
      actor: { id: ACTOR.id },
      executionContext: {
        sourceAccountId: p.payer,
        destinationAccountId: merchant,
        amount: p.amount,
        currency: 'XAF',
        fee: { amount: FEE },
        metadata: { typeCode: 'MERCHANT_PAYMENT' },
      },
    });
    let killed = false;
    let answered = 0;
    let crash: Promise<void> | undefined;
    let pidBefore: number | undefined;
    let groupedBeforeKill = 0;
    const deadline = Date.now() + 60_000;
    const confirm = async (p: Payment) => {
      let cut = false;
      const answer = await untilDefinite(async () => {
        const a = await caller.call('POST', `/v1/internal/intents/${p.intentId}/transition`, confirmBody(p), {
          'x-idempotency-key': p.confirmKey,
        });
        if (a.kind === 'none') cut = true;
        return a;
      }, deadline);
      if (answer.kind !== 'answer' || answer.status !== 200) {
        p.unfinished = answer.kind === 'none' ? answer.error : `${answer.status} ${String(answer.body.code)}`;
        return;
      }
      p.committed = answer.body;
      p.group = groupOf(answer);
      p.answeredBeforeKill = !killed;
      p.replayedAfterCut = cut && answer.replayed;
      answered += 1;
      if (answered >= KILL_AFTER && !crash) {
        crash = (async () => {
          // The process's own count of confirms committed in shared transactions, just before it dies.
          groupedBeforeKill = await metricSum(ledger.url, 'ledger_grouped_operations_total');
          pidBefore = ledger.pid;
          killed = true;
          await ledger.crashAndRestart();
        })();
      }
    };
    await inBatches(payments, CLIENTS, confirm);
    await crash;
    const burstRequests = tally.requests - setupRequests;

    // The database's view: one SUCCEEDED intent with one transaction per payment, and the money.
    const invariants = await checkInvariants(admin);
    const { rows } = await admin.query<{ id: string; status: string; txs: number; amount: string }>(
      `SELECT i.id, i.status, count(t.id)::int AS txs, i.amount::text AS amount
         FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.intent_id = i.id
        WHERE i.id = ANY($1::uuid[]) GROUP BY i.id`,
      [payments.map((p) => p.intentId)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const succeeded = payments.filter((p) => byId.get(p.intentId)?.status === 'SUCCEEDED' && byId.get(p.intentId)!.txs >= 1);
    const committedSum = succeeded.reduce((s, p) => s + p.amount, 0);
    let duplicated = rows.filter((r) => r.txs > 1).length;
    // Lost: a payment not executed, or executed without its client ever getting the 200.
    let lost = payments.filter((p) => byId.get(p.intentId)?.status !== 'SUCCEEDED' || !p.committed).length;
    // The 200 a client got must be the transaction the database holds.
    const transactions = await admin.query<{ intent_id: string; id: string; reference_id: string }>(
      `SELECT intent_id, id, reference_id FROM ledger.transactions WHERE intent_id = ANY($1::uuid[])`,
      [payments.map((p) => p.intentId)],
    );
    const txOf = new Map(transactions.rows.map((t) => [t.intent_id, t]));
    const mismatched = payments.filter(
      (p) =>
        p.committed &&
        (p.committed.transactionId !== txOf.get(p.intentId)?.id || p.committed.referenceId !== txOf.get(p.intentId)?.reference_id),
    ).length;
    lost += mismatched;
    const merchantBalance = await balance(merchant);
    const feesGained = (await balance(fees)) - feesBefore;
    const frozen = await frozenMismatches(admin);
    // Every committed payment's event leaves the outbox, those of the batches cut by the kill included.
    const outbox = async () =>
      (
        await admin.query<{ total: number; pending: number }>(
          `SELECT count(*)::int AS total, count(*) FILTER (WHERE published_at IS NULL)::int AS pending FROM ledger.outbox
            WHERE aggregate_id = ANY($1::uuid[])`,
          [transactions.rows.map((t) => t.id)],
        )
      ).rows[0];
    await waitUntil('the outbox to drain', async () => (await outbox()).pending === 0, 20_000);
    const published = (await outbox()).total;

    // Each confirm sent once more with its key: the stored answer, byte for byte, nothing executed again.
    let replaysMatching = 0;
    for (const p of payments.filter((x) => x.committed)) {
      const again = await caller.call('POST', `/v1/internal/intents/${p.intentId}/transition`, confirmBody(p), {
        'x-idempotency-key': p.confirmKey,
      });
      if (again.kind === 'answer' && again.status === 200 && again.replayed && JSON.stringify(again.body) === JSON.stringify(p.committed)) {
        replaysMatching += 1;
      } else duplicated += 1;
    }
    const txsAfterReplays = (
      await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = ANY($1::uuid[])`, [
        payments.map((p) => p.intentId),
      ])
    ).rows[0].n;
    await admin.end();

    const groups = payments.filter((p) => p.answeredBeforeKill && p.group !== undefined).map((p) => p.group!);
    const maxGroupBeforeKill = Math.max(0, ...groups);
    const inBatchesBeforeKill = groups.filter((g) => g > 1).length;
    const cutThenReplayed = payments.filter((p) => p.replayedAfterCut).length;
    const groupsAfter = payments.filter((p) => !p.answeredBeforeKill && p.group !== undefined).map((p) => p.group!);
    reportRow({
      case: 'kill -9 ledger-wallets, hot merchant (group commit)',
      faults: `kill -9 ledger-wallets ×${ledger.kills} (after ${KILL_AFTER}/${PAYMENTS} confirms, ${CLIENTS} concurrent on one merchant + FEE_COLLECTION), restart 0.5 s later`,
      requests: burstRequests + replaysMatching,
      committed: succeeded.length,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer - setupNoAnswer,
      lost,
      duplicated,
      notes:
        `before the kill ${inBatchesBeforeKill}/${groups.length} answers came from shared transactions (largest ${maxGroupBeforeKill}, ` +
        `ledger_grouped_operations_total ${groupedBeforeKill}); after it largest ${Math.max(0, ...groupsAfter)}; ` +
        `${cutThenReplayed} confirms cut by the kill were answered from the stored response (committed, answer lost); ` +
        `${replaysMatching}/${succeeded.length} later confirmations replayed identically; ${published} outbox events published; ` +
        `errors: ${tally.codeList() || 'none'}`,
    });

    expect(ledger.kills).toBe(1);
    expect(ledger.pid).not.toBe(pidBefore);
    // Batches larger than one formed before the kill: the queue was really in use when it died.
    expect(maxGroupBeforeKill).toBeGreaterThan(1);
    expect(groupedBeforeKill).toBeGreaterThan(0);
    // The kill cut confirms in flight.
    expect(tally.noAnswer - setupNoAnswer).toBeGreaterThan(0);
    expect(tally.unstable).toEqual([]);
    expect(payments.filter((p) => p.unfinished).map((p) => `${p.n}: ${p.unfinished}`)).toEqual([]);
    expect({ lost, duplicated, mismatched, committed: succeeded.length }).toEqual({
      lost: 0,
      duplicated: 0,
      mismatched: 0,
      committed: PAYMENTS,
    });
    expect(rows.filter((r) => r.status !== 'SUCCEEDED' || r.txs !== 1)).toEqual([]);
    expect(txsAfterReplays).toBe(PAYMENTS);
    expect(replaysMatching).toBe(PAYMENTS);
    // The merchant started at 0: it holds exactly the committed amounts; the fee account one fee per payment.
    expect(merchantBalance).toBe(committedSum);
    expect(feesGained).toBe(FEE * succeeded.length);
    expect(invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(invariants.totals).toEqual(before.totals);
    expect(frozen).toBe(0);
    expect(published).toBe(PAYMENTS);
  });
});
