import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { runWrite } from '@mm/platform';
import { ConfigVersionsService } from '../src/config-api/config-versions.service';
import { LimitsService } from '../src/limits/limits.service';
import type { LimitCheck } from '../src/limits/limits.types';
import { OrchestratorHarness } from './pricing-harness';
import { transferCheck } from './limit-checks';

/**
 * Limits against the real database, with the defaults of version 1 (TIER_1 in XAF: 100 000 per
 * operation, 200 000 per day, 1 000 000 per month, balance cap 500 000; agents 2 000 000 per
 * operation and 10 000 000 per day). Time is fixed per call, so days and months are exact.
 */
describe('limits: check at create, hold at confirm, usage on success', () => {
  const h = new OrchestratorHarness();
  let limitsAt: (iso: string) => LimitsService;
  let db: DataSource;
  /** A payment's success as the confirm records it: the usage write of its check. */
  const settled = (limits: LimitsService, check: LimitCheck) => runWrite(db, limits.usageWrite(check)!);

  beforeAll(async () => {
    await h.start();
    db = h.get(DataSource);
    const config = h.get(ConfigVersionsService);
    limitsAt = (iso) => new LimitsService(db, config, () => new Date(iso));
  });
  afterAll(() => h.stop());

  const transfer = transferCheck;
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'accepted',
      (e: { code: string; status: number; details?: { headers?: Record<string, string> } }) =>
        `${e.status} ${e.code} ${e.details?.headers?.['X-Limit-Allowed']}`,
    );
  const NOON = '2026-03-15T11:00:00.000Z'; // 12:00 in Douala (UTC+1)

  it('daily room: at, below and above what remains', async () => {
    const user = randomUUID();
    await settled(limitsAt('2026-03-15T08:00:00.000Z'), transfer(user, 100_000));
    await settled(limitsAt('2026-03-15T09:00:00.000Z'), transfer(user, 50_000));
    const limits = limitsAt(NOON);
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 49_999)))).toBe('accepted');
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 50_000)))).toBe('accepted');
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 50_001)))).toBe('422 LIMIT_DAILY_EXCEEDED 50000');
  });

  it('days are counted in the Douala time zone, not in UTC', async () => {
    const user = randomUUID();
    // 23:30 on 14 March in Douala: yesterday
    await settled(limitsAt('2026-03-14T22:30:00.000Z'), transfer(user, 100_000));
    // 00:30 on 15 March in Douala (still 14 March in UTC): today
    await settled(limitsAt('2026-03-14T23:30:00.000Z'), transfer(user, 100_000));
    await settled(limitsAt(NOON), transfer(user, 50_000));
    // today: 150 000 used, 50 000 left (counting UTC days would leave 150 000)
    expect(await refusalOf(limitsAt(NOON).checkAtCreate(transfer(user, 50_000)))).toBe('accepted');
    expect(await refusalOf(limitsAt(NOON).checkAtCreate(transfer(user, 50_001)))).toBe('422 LIMIT_DAILY_EXCEEDED 50000');
    // 23:00 UTC on 15 March is already 16 March in Douala: a new day
    expect(await refusalOf(limitsAt('2026-03-15T23:00:00.000Z').checkAtCreate(transfer(user, 100_000)))).toBe('accepted');
  });

  it('monthly room counts this calendar month only', async () => {
    const user = randomUUID();
    await settled(limitsAt('2026-02-27T10:00:00.000Z'), transfer(user, 100_000)); // last month
    for (let day = 1; day <= 10; day++) {
      const amount = day === 10 ? 50_000 : 100_000;
      await settled(limitsAt(`2026-03-${String(day).padStart(2, '0')}T10:00:00.000Z`), transfer(user, amount));
    }
    // 950 000 used in March: 50 000 left
    const limits = limitsAt(NOON);
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 50_000)))).toBe('accepted');
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 50_001)))).toBe('422 LIMIT_MONTHLY_EXCEEDED 50000');
    expect(await refusalOf(limitsAt('2026-04-01T09:00:00.000Z').checkAtCreate(transfer(user, 100_000)))).toBe('accepted');
  });

  it('bounds of the type; the recipient balance cap is left to the ledger (balance-cap-concurrency.test.ts)', async () => {
    const limits = limitsAt(NOON);
    expect(await refusalOf(limits.checkAtCreate(transfer(randomUUID(), 99)))).toBe('422 AMOUNT_BELOW_MINIMUM 100');
    expect(await refusalOf(limits.checkAtCreate(transfer(randomUUID(), 100)))).toBe('accepted');
    const payee = { userId: randomUUID(), kycTier: 'TIER_1' };
    expect(await refusalOf(limits.checkAtCreate(transfer(randomUUID(), 100_000, { payee, initiatorUserId: payee.userId })))).toBe(
      'accepted',
    );
  });

  it('agent ceilings: per operation and per day, cash-in and cash-out together', async () => {
    const agent = { agentId: randomUUID() };
    const cash = (type: 'CASH_IN' | 'CASH_OUT', amount: number): LimitCheck => ({
      operationId: randomUUID(),
      type,
      amount,
      currency: 'XAF',
      agent,
    });
    for (let i = 0; i < 4; i++) await settled(limitsAt('2026-03-15T07:00:00.000Z'), cash('CASH_IN', 2_000_000));
    await settled(limitsAt('2026-03-15T08:00:00.000Z'), cash('CASH_OUT', 1_000_000));
    const limits = limitsAt(NOON);
    expect(await refusalOf(limits.checkAtCreate(cash('CASH_IN', 2_000_001)))).toBe('422 AMOUNT_ABOVE_MAXIMUM 2000000');
    expect(await refusalOf(limits.checkAtCreate(cash('CASH_OUT', 1_000_000)))).toBe('accepted');
    expect(await refusalOf(limits.checkAtCreate(cash('CASH_OUT', 1_000_001)))).toBe('422 AMOUNT_ABOVE_MAXIMUM 1000000');
    expect(await refusalOf(limits.checkAtCreate(cash('CASH_IN', 1_000_001)))).toBe('422 AGENT_DAILY_CEILING_EXCEEDED 1000000');
  });

  it('concurrent confirms of one customer cannot pass the daily limit together', async () => {
    const user = randomUUID();
    const limits = limitsAt(NOON);
    const results = await Promise.all(Array.from({ length: 6 }, () => refusalOf(limits.holdAtConfirm(transfer(user, 60_000)))));
    // 200 000 per day: three holds of 60 000 fit, the fourth would make 240 000
    expect(results.filter((r) => r === 'accepted')).toHaveLength(3);
    expect(results.filter((r) => r === '422 LIMIT_DAILY_EXCEEDED 20000')).toHaveLength(3);
  });

  it('a retried confirm holds once; the success counts once however often it is recorded', async () => {
    const user = randomUUID();
    const limits = limitsAt(NOON);
    const op = transfer(user, 100_000);
    await limits.holdAtConfirm(op);
    await limits.holdAtConfirm(op);
    await Promise.all(Array.from({ length: 10 }, () => settled(limits, op)));
    await limits.holdAtConfirm(op); // after success: still a no-op
    const { rows } = await h.sql.query(`SELECT status, amount FROM orchestrator.limit_usage WHERE operation_id = $1`, [op.operationId]);
    expect(rows).toEqual([{ status: 'SETTLED', amount: '100000' }]);
    // counted once: 100 000 of the 200 000 daily room are left
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 100_000)))).toBe('accepted');
    await limits.holdAtConfirm(transfer(user, 100_000));
    expect(await refusalOf(limits.checkAtCreate(transfer(user, 100)))).toBe('422 LIMIT_DAILY_EXCEEDED 0');
  });

  it('a failed payment gives its hold back; a hold left by a crash lapses by itself', async () => {
    const user = randomUUID();
    await settled(limitsAt('2026-03-15T08:00:00.000Z'), transfer(user, 50_000));
    const failed = transfer(user, 100_000);
    await limitsAt(NOON).holdAtConfirm(failed);
    await limitsAt(NOON).holdAtConfirm(transfer(user, 50_000)); // never settled nor released (a crash)
    expect(await refusalOf(limitsAt(NOON).checkAtCreate(transfer(user, 100)))).toBe('422 LIMIT_DAILY_EXCEEDED 0');
    await limitsAt(NOON).release(failed.operationId);
    expect(await refusalOf(limitsAt(NOON).checkAtCreate(transfer(user, 100_000)))).toBe('accepted');
    // the crashed hold counts for holdSeconds (300 s), then no more
    await settled(limitsAt(NOON), transfer(user, 60_000));
    // 50 000 + 60 000 settled, 50 000 held
    expect(await refusalOf(limitsAt('2026-03-15T11:04:59.000Z').checkAtCreate(transfer(user, 40_001)))).toBe(
      '422 LIMIT_DAILY_EXCEEDED 40000',
    );
    expect(await refusalOf(limitsAt('2026-03-15T11:05:01.000Z').checkAtCreate(transfer(user, 90_000)))).toBe('accepted');
    expect(await refusalOf(limitsAt('2026-03-15T11:05:01.000Z').checkAtCreate(transfer(user, 90_001)))).toBe(
      '422 LIMIT_DAILY_EXCEEDED 90000',
    );
  });

  it('settled usage is final in the database', async () => {
    const op = transfer(randomUUID(), 5_000);
    await settled(limitsAt(NOON), op);
    await limitsAt(NOON).release(op.operationId); // no effect on settled usage
    const { rows } = await h.sql.query(`SELECT status FROM orchestrator.limit_usage WHERE operation_id = $1`, [op.operationId]);
    expect(rows).toEqual([{ status: 'SETTLED' }]);
    await expect(
      h.sql.query(`UPDATE orchestrator.limit_usage SET status = 'RELEASED', released_at = now() WHERE operation_id = $1`, [op.operationId]),
    ).rejects.toThrow(/settled usage of operation .* is final/);
    await expect(h.sql.query(`DELETE FROM orchestrator.limit_usage WHERE operation_id = $1`, [op.operationId])).rejects.toThrow(
      /DELETE forbidden/,
    );
  });

  it('a new limits version applies at once and is named in the verdict', async () => {
    const config = h.get(ConfigVersionsService);
    const active = await config.active('limits');
    const document = {
      ...active.document,
      tiers: active.document.tiers.map((t) => (t.tier === 'TIER_1' && t.currency === 'XAF' ? { ...t, singleMax: 80_000 } : t)),
    };
    const next = await config.append('limits', { baseVersion: active.version, document, createdBy: 'compliance', reason: 'lower TIER_1' });
    expect(await refusalOf(limitsAt(NOON).checkAtCreate(transfer(randomUUID(), 80_001)))).toBe('422 LIMIT_SINGLE_OPERATION_EXCEEDED 80000');
    expect(await limitsAt(NOON).checkAtCreate(transfer(randomUUID(), 80_000))).toEqual({ limitsVersion: next.version });
  });
});
