import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { runWrite, runWritesTogether, transactionOpenedWith } from '@mm/platform';
import { ConfigVersionsService } from '../src/config-api/config-versions.service';
import { LimitsService } from '../src/limits/limits.service';
import { OrchestratorHarness } from './pricing-harness';
import { transferCheck } from './limit-checks';
import { fakeDateOnly } from '../../../test/support/fake-date';

/**
 * Every replica counts limits on one clock, the database's: a hold or a usage row is dated by the
 * statement that writes it, never by the process that sends it. With the replica's own clock, a
 * replica running an hour ahead dated its holds in the future, and every other replica left them
 * out of the window (`occurred_at <= now`): two confirms could then pass a daily limit together.
 * The "replica" here is this process with only `Date` moved an hour ahead (timers run as usual).
 */
describe('limits: one clock for every replica (the database)', () => {
  const h = new OrchestratorHarness();
  let limits: LimitsService;
  let db: DataSource;

  beforeAll(async () => {
    await h.start();
    limits = h.get(LimitsService);
    db = h.get(DataSource);
  });
  afterEach(() => jest.useRealTimers());
  afterAll(() => h.stop());

  /** From here on this process's `Date` runs `ms` ahead of the database's clock, and keeps running. */
  const clockAhead = (ms: number) => fakeDateOnly(Date.now() + ms, { advance: true });
  const HOUR = 3_600_000;

  const transfer = transferCheck;
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'accepted',
      (e: { code: string; status: number }) => `${e.status} ${e.code}`,
    );
  /** How far a row's date is from the database's clock now, in ms (positive: in the future). */
  const skewOf = async (operationId: string, column: 'occurred_at' | 'released_at' | 'settled_at') => {
    const { rows } = await h.sql.query(
      `SELECT (extract(epoch FROM ${column} - clock_timestamp()) * 1000)::float8 AS skew, held_until - occurred_at AS held
         FROM orchestrator.limit_usage WHERE operation_id = $1`,
      [operationId],
    );
    expect(rows).toHaveLength(1);
    return { skew: Number(rows[0].skew), held: rows[0].held as { minutes?: number; seconds?: number } | null };
  };

  it('the service runs on the database clock', () => {
    // The module's provider, not a test's fixed clock.
    expect((limits as unknown as { clock: () => Date | null }).clock()).toBeNull();
  });

  it('a hold taken step by step on a replica running an hour ahead is dated by the database and counted by the others', async () => {
    const user = randomUUID();
    const first = transfer(user, 100_000);
    clockAhead(HOUR);
    expect(await refusalOf(limits.holdAtConfirm(first))).toBe('accepted');
    jest.useRealTimers();

    const { skew, held } = await skewOf(first.operationId, 'occurred_at');
    expect(Math.abs(skew)).toBeLessThan(60_000);
    // held for the document's holdSeconds (300 s by default), from that same time
    expect(held).toEqual({ minutes: 5 });
    // TIER_1: 200 000 a day. With 60 000 paid, the 100 000 held leaves 40 000.
    await runWrite(db, limits.usageWrite(transfer(user, 60_000))!);
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 40_001)))).toBe('422 LIMIT_DAILY_EXCEEDED');
    expect(await refusalOf(limits.holdAtConfirm(transfer(user, 40_001)))).toBe('422 LIMIT_DAILY_EXCEEDED');
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 40_000)))).toBe('accepted');
  });

  it("the confirm's one-statement hold, written after the locks, is dated by the database too", async () => {
    const user = randomUUID();
    const first = transfer(user, 100_000);
    const active = await h.get(ConfigVersionsService).active('limits');
    clockAhead(HOUR);
    const plan = limits.planHold(first, active, 'true');
    if (plan.kind !== 'hold') throw new Error(`expected a hold plan, got ${plan.kind}`);
    const rows = await transactionOpenedWith(db, plan.lock, (m) => runWritesTogether(m, { hold: plan.write() }, 'hold'));
    jest.useRealTimers();
    expect(rows).toHaveLength(1);

    expect(Math.abs((await skewOf(first.operationId, 'occurred_at')).skew)).toBeLessThan(60_000);
    // 100 000 held of the 200 000 a day; another replica (this one, its clock right) holds 60 000 more
    expect(await refusalOf(limits.holdAtConfirm(transfer(user, 60_000)))).toBe('accepted');
    // and finds no room for 40 001 in the same one statement, nor step by step
    const second = transfer(user, 40_001);
    const again = limits.planHold(second, active, 'true');
    if (again.kind !== 'hold') throw new Error(`expected a hold plan, got ${again.kind}`);
    expect(await transactionOpenedWith(db, again.lock, (m) => runWritesTogether(m, { hold: again.write() }, 'hold'))).toEqual([]);
    expect(await refusalOf(limits.holdAtConfirm(second))).toBe('422 LIMIT_DAILY_EXCEEDED');
  });

  it('usage on success and a release are dated by the database', async () => {
    const user = randomUUID();
    const paid = transfer(user, 10_000);
    const failed = transfer(user, 10_000);
    await limits.holdAtConfirm(failed);
    clockAhead(HOUR);
    await runWrite(db, limits.usageWrite(paid)!);
    await limits.release(failed.operationId);
    jest.useRealTimers();
    for (const column of ['occurred_at', 'settled_at'] as const) {
      expect(Math.abs((await skewOf(paid.operationId, column)).skew)).toBeLessThan(60_000);
    }
    expect(Math.abs((await skewOf(failed.operationId, 'released_at')).skew)).toBeLessThan(60_000);
  });

  /**
   * Another confirm holds the user's limit lock while `waiter` queues on it, then commits a 150 000
   * hold dated by its own statement and lets go. What the waiter dates and counts by must be read
   * after the wait: `now()` (the transaction's start, taken with BEGIN before the lock) would miss
   * that hold.
   */
  async function behindAHold<T>(user: string, waiter: () => Promise<T>): Promise<T> {
    await h.sql.query('BEGIN');
    await h.sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`limits:CUSTOMER:${user}:XAF`]);
    const waiting = waiter();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await h.sql.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory'`,
      );
      if (rows[0].n > 0) break;
      if (Date.now() > deadline) throw new Error('the confirm never queued on the limit lock');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await h.sql.query(
      `INSERT INTO orchestrator.limit_usage (operation_id, subject_kind, subject_id, currency, type, amount, status, occurred_at, held_until)
       VALUES ($1, 'CUSTOMER', $2, 'XAF', 'TRANSFER', 150000, 'HELD', statement_timestamp(), statement_timestamp() + interval '5 minutes')`,
      [randomUUID(), user],
    );
    await h.sql.query('COMMIT');
    return waiting;
  }

  it('a one-statement hold queued behind the locks counts the hold committed while it waited', async () => {
    const user = randomUUID();
    const plan = limits.planHold(transfer(user, 100_000), await h.get(ConfigVersionsService).active('limits'), 'true');
    if (plan.kind !== 'hold') throw new Error(`expected a hold plan, got ${plan.kind}`);
    const rows = await behindAHold(user, () =>
      transactionOpenedWith(db, plan.lock, (m) => runWritesTogether(m, { hold: plan.write() }, 'hold')),
    );
    // 150 000 held + 100 000 is more than the 200 000 a day: nothing held
    expect(rows).toEqual([]);
  });

  it('a step-by-step hold queued behind the locks counts it too, and is refused', async () => {
    const user = randomUUID();
    expect(await behindAHold(user, () => refusalOf(limits.holdAtConfirm(transfer(user, 100_000))))).toBe('422 LIMIT_DAILY_EXCEEDED');
  });
});
