/**
 * The ledger's settlement statement of one account
 * (docs/statements.md "How it ties to the ledger", "Cost, and what keeps it away from payments"),
 * on entries booked at chosen instants: the period boundaries to the millisecond (default and other
 * offsets), an entry stamped before a boundary but applied after one stamped past it, when a period
 * becomes final, the bounds (age, lines, time), and statements served while payments hold every
 * admitted session.
 */
import { randomUUID } from 'node:crypto';
import { addCalendarDays, businessDayBounds, businessDayOf } from '@mm/contracts';
import { uuidLockKey } from '../src/db/lock-keys';
import { type Harness, type ResponseBody, contextFor, fundedAccount, pinVerifiedIntent, startLedger } from './ledger-harness';

let h: Harness;
let suspense: string;
/** one clock reading for the whole file: the days below never move under a run crossing midnight */
const NOW = Date.now();
const DAY = addCalendarDays(businessDayOf(new Date(NOW)), -10);

beforeAll(async () => {
  h = await startLedger({
    // one admitted session, none may queue: a request finding it busy is refused at once
    DB_POOL_SIZE: '2',
    LEDGER_SESSION_QUEUE_LIMIT: '0',
    LEDGER_LOCK_TIMEOUT_MS: '60000',
    LEDGER_STATEMENT_MAX_LINES: '3',
    LEDGER_STATEMENT_TIMEOUT_MS: '1500',
  });
  suspense = (await h.admin.query(`SELECT id FROM ledger.accounts WHERE account_type = 'suspense' AND currency = 'XAF'`)).rows[0].id;
});
afterAll(() => h.close());

/**
 * One entry on `account` against suspense, stamped `at`, written as the correction path writes one
 * (its transaction, both entries, both balances) in its own transaction: the chain trigger gives it
 * the account's next chain_seq, so the order of these calls is the order of application.
 */
async function book(account: string, kind: 'CREDIT' | 'DEBIT', amount: number, at: number): Promise<string> {
  const tx = randomUUID();
  const [mine, other] = [randomUUID(), randomUUID()];
  const stamp = new Date(at);
  const reference = `MMPTX000000${randomUUID().replace(/-/g, '').slice(0, 7).toUpperCase()}`;
  const delta = kind === 'CREDIT' ? amount : -amount;
  await h.admin.query('BEGIN');
  try {
    await h.admin.query(
      `INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
       VALUES ($1, $2, 'ADJUSTMENT', $3, 0, 'XAF', 'statement-test', $4, $4, '{"reason":"statement test"}')`,
      [tx, reference, amount, stamp],
    );
    await h.admin.query(
      `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
       VALUES ($1, $3, $4, $6, $7, 'XAF', $2, 'statement-test', $8), ($2, $3, $5, $9, $7, 'XAF', $1, 'statement-test', $8)`,
      [mine, other, tx, account, suspense, kind, amount, stamp, kind === 'CREDIT' ? 'DEBIT' : 'CREDIT'],
    );
    await h.admin.query(
      `UPDATE ledger.accounts SET balance = balance + d.delta, available_balance = available_balance + d.delta
         FROM (VALUES ($1::uuid, $3::bigint), ($2::uuid, -$3::bigint)) d(id, delta) WHERE accounts.id = d.id`,
      [account, suspense, delta],
    );
    await h.admin.query('COMMIT');
  } catch (error) {
    await h.admin.query('ROLLBACK');
    throw error;
  }
  return mine;
}

async function statement(account: string, from: number | string, to: number | string) {
  const iso = (t: number | string) => (typeof t === 'number' ? new Date(t).toISOString() : t);
  const q = new URLSearchParams({ from: iso(from), to: iso(to) });
  return h.call('GET', `/v1/internal/accounts/${account}/settlement-statement?${q.toString()}`);
}

const ms = (instant: string) => Date.parse(instant);

describe('the period, to the millisecond', () => {
  it('holds the entries stamped at its start and one millisecond before its end, not those just before or at its end', async () => {
    const account = await fundedAccount(h, 0);
    const { from, to } = businessDayBounds(DAY);
    await book(account, 'CREDIT', 1_000, ms(from) - 1);
    const atStart = await book(account, 'CREDIT', 200, ms(from));
    const lastMs = await book(account, 'DEBIT', 50, ms(to) - 1);
    await book(account, 'CREDIT', 7, ms(to));
    const res = await statement(account, from, to);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ openingBalance: 1_000, closingBalance: 1_150, final: true, from, to });
    expect(res.body.lines.map((l: ResponseBody) => [l.entryId, l.bookedAt, l.balanceAfter])).toEqual([
      [atStart, from, 1_200],
      [lastMs, new Date(ms(to) - 1).toISOString(), 1_150],
    ]);
  });

  it('at another offset (−05:30) the same rule holds on that offset’s day', async () => {
    const account = await fundedAccount(h, 0);
    const { from, to } = businessDayBounds(DAY, '-05:30');
    expect(from).toBe(new Date(Date.parse(`${DAY}T00:00:00-05:30`)).toISOString());
    await book(account, 'CREDIT', 500, ms(from) - 1);
    const first = await book(account, 'CREDIT', 30, ms(from));
    const last = await book(account, 'CREDIT', 20, ms(to) - 1);
    await book(account, 'CREDIT', 9, ms(to));
    const res = await statement(account, from, to);
    expect(res.body).toMatchObject({ openingBalance: 500, closingBalance: 550 });
    expect(res.body.lines.map((l: ResponseBody) => l.entryId)).toEqual([first, last]);
  });
});

describe('lines in the order the ledger applied them', () => {
  it('an entry stamped before midnight but applied after the first one stamped past it is on the next day: no balance below zero, days meet exactly', async () => {
    const account = await fundedAccount(h, 0);
    const day = businessDayBounds(DAY);
    const next = businessDayBounds(addCalendarDays(DAY, 1));
    // The payment in lands just after midnight; the payout it made possible was stamped 1 ms before
    // midnight (its stamp is taken before its locks) and applied after it.
    const paymentIn = await book(account, 'CREDIT', 100, ms(day.to));
    const payout = await book(account, 'DEBIT', 100, ms(day.to) - 1);
    const before = await statement(account, day.from, day.to);
    const after = await statement(account, next.from, next.to);
    expect(before.body).toMatchObject({ openingBalance: 0, closingBalance: 0, lines: [] });
    expect(after.body).toMatchObject({ openingBalance: 0, closingBalance: 0 });
    expect(after.body.lines.map((l: ResponseBody) => [l.entryId, l.direction, l.balanceAfter])).toEqual([
      [paymentIn, 'CREDIT', 100],
      [payout, 'DEBIT', 0],
    ]);
    // both days at once: the same lines, the same ends
    const both = await statement(account, day.from, next.to);
    expect(both.body.lines.map((l: ResponseBody) => l.entryId)).toEqual([paymentIn, payout]);
  });
});

describe('final', () => {
  it('is false until the end of the period is LEDGER_STATEMENT_FINAL_AFTER_MS (5 min) old, true after', async () => {
    const account = await fundedAccount(h, 0);
    const now = Date.now();
    expect((await statement(account, now - 3_600_000, now - 4 * 60_000)).body.final).toBe(false);
    expect((await statement(account, now - 3_600_000, now - 6 * 60_000)).body.final).toBe(true);
    expect((await statement(account, now - 3_600_000, now + 3_600_000)).body.final).toBe(false);
  });
});

describe('bounds', () => {
  it('a period starting more than LEDGER_STATEMENT_MAX_AGE_DAYS (400) back is 400 SETTLEMENT_PERIOD_TOO_OLD', async () => {
    const account = await fundedAccount(h, 0);
    const old = await statement(account, Date.now() - 401 * 86_400_000, Date.now() - 400 * 86_400_000);
    expect({ status: old.status, code: old.body.code }).toEqual({ status: 400, code: 'SETTLEMENT_PERIOD_TOO_OLD' });
    expect((await statement(account, Date.now() - 399 * 86_400_000, Date.now() - 398 * 86_400_000)).status).toBe(200);
  });

  it('more entries than LEDGER_STATEMENT_MAX_LINES (3 here) is 422 SETTLEMENT_STATEMENT_TOO_LARGE; exactly that many is served', async () => {
    const account = await fundedAccount(h, 0);
    const { from, to } = businessDayBounds(addCalendarDays(DAY, 3));
    for (let i = 0; i < 3; i++) await book(account, 'CREDIT', 10 + i, ms(from) + i * 1_000);
    expect((await statement(account, from, to)).body.lines).toHaveLength(3);
    await book(account, 'CREDIT', 99, ms(from) + 10_000);
    const big = await statement(account, from, to);
    expect({ status: big.status, code: big.body.code }).toEqual({ status: 422, code: 'SETTLEMENT_STATEMENT_TOO_LARGE' });
  });

  it('a read longer than LEDGER_STATEMENT_TIMEOUT_MS is cancelled: 503 SETTLEMENT_STATEMENT_TIMEOUT, and the next one is served', async () => {
    const account = await fundedAccount(h, 0);
    // Another session holds the entries table: the statement's read waits until its time limit.
    await h.admin.query('BEGIN');
    await h.admin.query('LOCK TABLE ledger.ledgers IN ACCESS EXCLUSIVE MODE');
    let res: Awaited<ReturnType<typeof statement>>;
    try {
      res = await statement(account, Date.now() - 3_600_000, Date.now());
    } finally {
      await h.admin.query('ROLLBACK');
    }
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'SETTLEMENT_STATEMENT_TIMEOUT' });
    expect((await statement(account, Date.now() - 3_600_000, Date.now())).status).toBe(200);
  });
});

describe('outside the money path’s session gate', () => {
  it('is served while a payment holds the only admitted session, when any gated request is refused 503', async () => {
    const payer = await fundedAccount(h, 10_000);
    const payee = await fundedAccount(h, 0);
    const intent = await pinVerifiedIntent(h, payer, payee, 100);
    const holder = await h.admin.query('SELECT pg_backend_pid() AS pid');
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [uuidLockKey(payer).toString()]);
    let confirm: Promise<{ status: number }> | undefined;
    try {
      confirm = h.call(
        'POST',
        `/v1/internal/intents/${intent}/transition`,
        { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(payer, payee, 100) },
        { 'x-idempotency-key': randomUUID() },
      );
      // the confirm is admitted and waits for the payer's lock
      for (let i = 0; ; i++) {
        const r = await h.admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory' AND pid <> $1`,
          [holder.rows[0].pid],
        );
        if (r.rows[0].n === 1) break;
        if (i > 600) throw new Error('the confirm never waited on the lock');
        await new Promise((r) => setTimeout(r, 50));
      }
      const gated = await h.call('GET', `/v1/internal/accounts/${payee}`);
      expect({ status: gated.status, code: gated.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      const res = await statement(payer, Date.now() - 3_600_000, Date.now());
      expect(res.status).toBe(200);
      expect(res.body.closingBalance).toBe(10_000);
    } finally {
      await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [uuidLockKey(payer).toString()]);
    }
    expect((await confirm)!.status).toBe(200);
  });
});
