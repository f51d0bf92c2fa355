/**
 * kill -9 of ledger-wallets during a burst of transfers, then a restart. The clients behave like the
 * orchestrator: every step carries an idempotency key and is retried with it until a definite answer.
 * Proves: no half-written transaction (ledger invariants, frozen = open intents), every transfer
 * executed exactly once, and a confirmation retried after the crash returns the committed answer.
 */
import { checkInvariants } from '../../apps/ledger-wallets/test/invariants';
import { LedgerCaller, Tally, createFundedAccount, planTransfers, runBurst, verifyLedger } from './support/ledger-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { reportRow } from './support/report';
import { waitUntil } from './support/webhook-load';

const TRANSFERS = 120;
const CLIENTS = 12;
const KILL_AFTER = 30;

describe('fault: kill -9 of ledger-wallets during a burst of transfers', () => {
  let platform: FaultPlatform;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['ledger-wallets'] });
  }, 60_000);
  afterAll(() => platform?.close());

  it('restarts with every transfer executed exactly once and the ledger invariants intact', async () => {
    const ledger = platform.service('ledger-wallets');
    const tally = new Tally();
    const caller = new LedgerCaller(ledger.url, platform.keyOf('orchestrator'), tally);
    const funded = new Map<string, number>();
    for (let i = 0; i < 8; i++) funded.set(await createFundedAccount(caller, 100_000, platform.keyOf('ops')), 100_000);
    const admin = await platform.pg.admin();
    const before = await checkInvariants(admin);
    const setupRequests = tally.requests;

    let crash: Promise<void> | undefined;
    let pidBefore: number | undefined;
    const outcomes = await runBurst(
      caller,
      platform.signer,
      planTransfers([...funded.keys()], TRANSFERS),
      CLIENTS,
      Date.now() + 90_000,
      (done) => {
        if (done < KILL_AFTER || crash) return;
        pidBefore = ledger.pid;
        crash = ledger.crashAndRestart();
      },
    );
    await crash;
    const verdict = await verifyLedger(caller, admin, outcomes, funded, before.totals);
    // Every committed transfer's event leaves the outbox, those written just before the crash included.
    const outbox = async () =>
      (
        await admin.query<{ total: number; pending: number }>(
          `SELECT count(*)::int AS total, count(*) FILTER (WHERE published_at IS NULL)::int AS pending FROM ledger.outbox`,
        )
      ).rows[0];
    await waitUntil('the outbox to drain', async () => (await outbox()).pending === 0, 20_000);
    const published = (await outbox()).total;
    await admin.end();

    reportRow({
      case: 'kill -9 ledger-wallets',
      faults: `kill -9 ledger-wallets ×${ledger.kills} (after ${KILL_AFTER}/${TRANSFERS} transfers), restart 0.5 s later`,
      requests: tally.requests - setupRequests,
      committed: verdict.committed,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost: verdict.lost,
      duplicated: verdict.duplicated,
      notes: `${published} outbox events published; ${tally.replayed - verdict.replaysMatching} retries answered from the stored response during the burst, ${verdict.replaysMatching}/${verdict.committed} later confirmations replayed identically; errors: ${tally.codeList() || 'none'}`,
    });

    expect(ledger.kills).toBe(1);
    expect(ledger.pid).not.toBe(pidBefore);
    // The crash hit requests in flight: some got no answer at all.
    expect(tally.noAnswer).toBeGreaterThan(0);
    expect(tally.unstable).toEqual([]);
    expect(outcomes.filter((o) => !o.committed)).toEqual([]);
    expect(verdict).toMatchObject({ lost: 0, duplicated: 0, balanceGaps: 0, frozenGaps: 0, totalsKept: true, committed: TRANSFERS });
    expect(verdict.invariants).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(verdict.replaysMatching).toBe(TRANSFERS);
    expect(published).toBe(TRANSFERS);
  });
});
