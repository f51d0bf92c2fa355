import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  EXECUTE_CONFIRM_BATCH_CALL,
  EXECUTE_CONFIRM_CALL,
  CONFIRM_CALL_FIELDS,
  type ConfirmCall,
  confirmBatchValues,
  confirmCallLiteral,
} from '../src/db/execute-confirm-call';
import { type IdempotentWrite, TransferExecutor } from '../src/execution/transfer-executor.service';
import type { ExecutionContextDto } from '../src/intents/dto/execution-context.dto';
import { TechnicalAccountsService } from '../src/wallets/technical-accounts.service';
import { propertyTest } from '../../../test/support/property-deadline';
import { type Harness, insertWallet, startLedger } from './ledger-harness';

/**
 * A group commit's batch runs as ONE call of `ledger.execute_confirm_batch` (migration
 * 1765000000000), which must answer and write exactly what the same calls of
 * `ledger.execute_confirm`, one after the other in one transaction, answer and write. fast-check
 * draws batches from a pool of confirms built by the service's own `TransferExecutor.plan` (lawful
 * ones, every kind of refusal, the same intent twice, a purse that pays only the first of its
 * payments, shared idempotency keys, a call whose deltas would break an account's constraint); each
 * batch runs both ways in a SERIALIZABLE transaction, its deferred checks fired, then rolled back.
 * Both ways must give the same answers (or both fail) and leave the same rows. The time of a
 * confirm is the database's clock once its locks are held (one reading per call alone, one per
 * batch): each reading an answer gives is compared as one token, and the entries' hashes, which
 * cover it, are checked on the rows (each links its previous one and hashes its own row) rather
 * than compared.
 */

const AMOUNT = 100;
const FEE = 10;
const RICH = 1_000_000;
/** enough for the fee of one payment of the tight purse, not two */
const TIGHT = 15;
/**
 * Random batches compared with the same calls one by one. A run plans up to 8 calls and runs them
 * twice in a rolled-back transaction (about 25 SQL statements): well under 0.1 s on a 2-core machine
 * at load average 10, so each run is allowed 1 s.
 */
const BATCH_WORK = { runs: 150, perRunMs: 1_000 };

type Kind = 'c1' | 'c2' | 'tight' | 'poor' | 'merchant' | 'agent' | 'commission' | 'xof' | 'feeCollection' | 'treasury';

interface Delta {
  id: string;
  balance: number;
  available: number;
  frozen: number;
}

/** How a call's context is filled in beyond its accounts: the caller's names or the intent's, extra or none, the clock. */
interface Variant {
  named: boolean;
  extra: boolean;
  earlier: boolean;
}
const PLAIN: Variant = { named: false, extra: true, earlier: false };

interface PoolCall {
  label: string;
  intentId: string;
  ctx: ExecutionContextDto;
  /** the call's deltas turned against it: its destination debited (a constraint breaks) */
  tamper?: boolean;
}

describe('ledger: execute_confirm_batch does what the same execute_confirm calls do one after the other', () => {
  let h: Harness;
  let executor: TransferExecutor;
  const now = new Date();
  const ids = {} as Record<Kind, string>;
  const pool: PoolCall[] = [];

  beforeAll(async () => {
    h = await startLedger();
    executor = new TransferExecutor(h.app.config, h.app.app.get(TechnicalAccountsService));
    const db = h.admin;
    const wallet = async (ownerType: string, rows: [Kind, string, string][]) => Object.assign(ids, await insertWallet(h, ownerType, rows));
    await wallet('USER', [['c1', 'customer', 'XAF']]);
    await wallet('USER', [['c2', 'customer', 'XAF']]);
    await wallet('USER', [['tight', 'customer', 'XAF']]);
    await wallet('USER', [['poor', 'customer', 'XAF']]);
    await wallet('USER', [['xof', 'customer', 'XOF']]);
    await wallet('MERCHANT', [['merchant', 'merchant', 'XAF']]);
    await wallet('AGENT', [
      ['agent', 'agent', 'XAF'],
      ['commission', 'agent_commission', 'XAF'],
    ]);
    const technical = h.app.app.get(TechnicalAccountsService);
    ids.feeCollection = (await technical.id('fee_collection', 'XAF')).toLowerCase();
    ids.treasury = (await technical.id('treasury', 'XAF')).toLowerCase();

    // Intents at PIN_VERIFIED as the service leaves them (the amount held on the source).
    const intents: {
      id: string;
      type: string;
      status: string;
      source: Kind;
      destination: Kind;
      currency: string;
      expires: Date;
      otp?: boolean;
    }[] = [];
    const intent = (type: string, source: Kind, destination: Kind, extra: Partial<(typeof intents)[number]> = {}) => {
      const id = randomUUID();
      intents.push({
        id,
        type,
        status: 'PIN_VERIFIED',
        source,
        destination,
        currency: 'XAF',
        expires: new Date(now.getTime() + 86_400_000),
        ...extra,
      });
      return id;
    };
    const context = (source: Kind, destination: Kind, extra: Partial<ExecutionContextDto> = {}): ExecutionContextDto =>
      ({
        sourceAccountId: ids[source],
        destinationAccountId: ids[destination],
        amount: AMOUNT,
        currency: 'XAF',
        ...extra,
      }) as ExecutionContextDto;
    const fee = { fee: { amount: FEE } } as Partial<ExecutionContextDto>;
    const add = (label: string, intentId: string, ctx: ExecutionContextDto, tamper = false) => pool.push({ label, intentId, ctx, tamper });

    for (const [s, d] of [
      ['c1', 'c2'],
      ['c2', 'c1'],
      ['c1', 'merchant'],
      ['c2', 'merchant'],
    ] as [Kind, Kind][]) {
      const id = intent('TRANSFER', s, d);
      add(`${s}→${d}`, id, context(s, d));
      add(`${s}→${d} fee`, id, context(s, d, fee));
      add(`${s}→${d} wrong amount`, id, context(s, d, { amount: AMOUNT + 1 }));
      add(`${s}→${d} fee to a customer`, id, context(s, d, { fee: { amount: FEE, accountId: ids.c2 } } as Partial<ExecutionContextDto>));
    }
    for (let k = 1; k <= 3; k++) {
      const id = intent('TRANSFER', 'tight', 'merchant');
      add(`tight #${k} fee`, id, context('tight', 'merchant', fee));
      add(`tight #${k}`, id, context('tight', 'merchant'));
    }
    const poor = intent('TRANSFER', 'poor', 'merchant');
    add('poor fee', poor, context('poor', 'merchant', fee));
    add('poor', poor, context('poor', 'merchant'));
    const cashIn = intent('CASH_IN', 'agent', 'c1');
    add('cash-in', cashIn, context('agent', 'c1'));
    add(
      'cash-in commission',
      cashIn,
      context('agent', 'c1', { commission: { amount: 5, accountId: ids.commission } } as Partial<ExecutionContextDto>),
    );
    const cashOut = intent('CASH_OUT', 'c2', 'agent');
    add(
      'cash-out fee and commission',
      cashOut,
      context('c2', 'agent', { ...fee, commission: { amount: 5, accountId: ids.commission } } as Partial<ExecutionContextDto>),
    );
    add(
      'cash-out commission to a customer',
      cashOut,
      context('c2', 'agent', { commission: { amount: 5, accountId: ids.c1 } } as Partial<ExecutionContextDto>),
    );
    const tampered = intent('TRANSFER', 'c1', 'merchant');
    add('deltas debit the merchant', tampered, context('c1', 'merchant'), true);
    add('expired', intent('TRANSFER', 'c1', 'c2', { expires: new Date(now.getTime() - 1000) }), context('c1', 'c2'));
    add('created', intent('TRANSFER', 'c1', 'c2', { status: 'CREATED' }), context('c1', 'c2'));
    add('after OTP', intent('TRANSFER', 'c2', 'c1', { otp: true }), context('c2', 'c1'));
    add('xof source', intent('TRANSFER', 'xof', 'c1'), context('xof', 'c1'));
    add('unknown intent', randomUUID(), context('c1', 'c2'));
    const qr = intent('TRANSFER', 'c1', 'merchant');
    add('QR payment', qr, context('c1', 'merchant', fee));
    // The merchant (RICH) capped so that one payment of the batch fits and the next does not.
    const capped = (extra: Partial<ExecutionContextDto> = {}) =>
      ({ payeeBalanceCap: RICH + AMOUNT + AMOUNT / 2, ...extra }) as Partial<ExecutionContextDto>;
    for (let k = 1; k <= 2; k++) {
      const id = intent('TRANSFER', 'c2', 'merchant');
      add(`capped #${k}`, id, context('c2', 'merchant', capped()));
      add(`capped #${k} fee`, id, context('c2', 'merchant', capped(fee)));
    }
    add(
      'capped shut',
      intent('TRANSFER', 'c1', 'merchant'),
      context('c1', 'merchant', { payeeBalanceCap: RICH } as Partial<ExecutionContextDto>),
    );

    await db.query(
      `INSERT INTO ledger.transaction_intents (id, type, status, idempotency_key, source_account_id, destination_account_id, amount, fee,
         frozen_amount, currency, requires_otp, otp_user_id, initiated_by, description, expires_at)
       SELECT r.id, r.type, r.status, r.id::text, r.source, r.destination, $2, 0, $2, r.currency, r.otp, CASE WHEN r.otp THEN 'otp-user' END,
              'batch-test', 'a payment', r.expires
       FROM jsonb_to_recordset($1::jsonb) AS r (id uuid, type text, status text, source uuid, destination uuid, currency text, otp boolean, expires timestamptz)`,
      [JSON.stringify(intents.map((i) => ({ ...i, source: ids[i.source], destination: ids[i.destination], otp: i.otp ?? false }))), AMOUNT],
    );
    await db.query(`UPDATE ledger.transaction_intents SET qr_token = $2 WHERE id = $1`, [qr, `QR-${qr}`]);
    await db.query(`INSERT INTO ledger.intent_qr_locks (qr_token, intent_id) VALUES ($1, $2)`, [`QR-${qr}`, qr]);
    // Balances: the holds of each source's intents, plus a purse (rich, tight or empty; the treasury
    // at zero, so that a commission takes it below, which only treasury and suspense may go).
    await db.query(
      `UPDATE ledger.accounts a SET available_balance = v.available, frozen_balance = v.held, balance = v.available + v.held
       FROM (SELECT x.id, CASE x.id WHEN $1::uuid THEN $3::bigint WHEN $2::uuid THEN 0 WHEN $6::uuid THEN 0 ELSE $4::bigint END AS available,
                    coalesce(sum(i.frozen_amount), 0) AS held
             FROM ledger.accounts x LEFT JOIN ledger.transaction_intents i ON i.source_account_id = x.id
             WHERE x.id = ANY ($5::uuid[]) GROUP BY x.id) v
       WHERE a.id = v.id`,
      [ids.tight, ids.poor, TIGHT, RICH, Object.values(ids), ids.treasury],
    );
  }, 60_000);
  afterAll(() => h?.close());

  /** One call's values, planned by the service (with an idempotent answer when `key` is given). */
  async function planCall(call: PoolCall, key: string | null, variant: Variant = PLAIN): Promise<ConfirmCall> {
    const resolved = await executor.resolve(call.ctx);
    const idempotent: IdempotentWrite | undefined = key
      ? {
          entry: { scope: 'batch-test', key, hash: 'h'.repeat(64), ttlHours: 24, lockKey: 0n },
          status: 200,
          body: (r) => ({ ...r, call: call.label }),
        }
      : undefined;
    const plan = executor.plan(
      {
        intentId: call.intentId,
        resolved,
        currency: call.ctx.currency,
        meta: {
          createdBy: variant.named ? 'agent-7' : null,
          typeCode: variant.named ? 'BATCH' : null,
          agentId: variant.named ? 'AG-7' : null,
          description: variant.named ? 'école ☕ "quoted"' : null,
          ...(variant.extra ? { extra: { label: call.label, note: 'naïve ✓' } } : {}),
        },
        actor: { id: 'batch-test', ip: '10.0.0.9', userAgent: 'jest' },
        // two seconds earlier, the expired intent is not expired yet
        now: variant.earlier ? new Date(now.getTime() - 2_000) : now,
      },
      idempotent,
    );
    const args = { ...plan.call };
    if (call.tamper) {
      const deltas = JSON.parse(args.deltas) as Delta[];
      args.deltas = JSON.stringify(
        deltas.map((d) => (d.id === resolved.destination ? { ...d, balance: -2 * RICH, available: -2 * RICH } : d)),
      );
    }
    return args;
  }

  /** What a transaction leaves on the rows a batch can touch (after its deferred checks ran). */
  async function state(calls: ConfirmCall[], keys: string[]): Promise<unknown> {
    const intentIds = calls.map((a) => a.intent_id);
    const accountIds = [...new Set(calls.flatMap((a) => a.account_ids))];
    const { rows } = await h.admin.query(
      `SELECT
         (SELECT json_agg(t ORDER BY t.id) FROM (SELECT id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at,
            completed_at, metadata, reversal_of FROM ledger.transactions WHERE intent_id = ANY ($1::uuid[])) t) AS transactions,
         (SELECT json_agg(l ORDER BY l.id) FROM ledger.ledgers l JOIN ledger.transactions t ON t.id = l.transaction_id
           WHERE t.intent_id = ANY ($1::uuid[])) AS entries,
         (SELECT json_agg(a ORDER BY a.id) FROM (SELECT id, balance, available_balance, frozen_balance, updated_at FROM ledger.accounts
           WHERE id = ANY ($2::uuid[])) a) AS accounts,
         (SELECT json_agg(i ORDER BY i.id) FROM ledger.transaction_intents i WHERE i.id = ANY ($1::uuid[])) AS intents,
         (SELECT json_agg(e ORDER BY e.intent_id, e.created_at) FROM (SELECT intent_id, from_status, to_status, event, actor_id, ip_address,
            user_agent, metadata, created_at FROM ledger.intent_events WHERE intent_id = ANY ($1::uuid[])) e) AS events,
         (SELECT json_agg(o ORDER BY o.id) FROM (SELECT o.id, o.event_type, o.aggregate_id, o.payload, o.created_at, o.published_at
            FROM ledger.outbox o JOIN ledger.transactions t ON t.id = o.aggregate_id WHERE t.intent_id = ANY ($1::uuid[])) o) AS outbox,
         (SELECT json_agg(k ORDER BY k.key) FROM (SELECT key, request_hash, response_status, response_body::text AS body
            FROM ledger.idempotency_keys WHERE scope = 'batch-test' AND key = ANY ($3::text[])) k) AS keys,
         (SELECT json_agg(q.intent_id ORDER BY q.intent_id) FROM ledger.intent_qr_locks q WHERE q.intent_id = ANY ($1::uuid[])) AS qr_locks`,
      [intentIds, accountIds, keys],
    );
    return rows[0];
  }

  /** Entries of the calls' intents whose hash is not their row's, or whose previous hash is not the one before them on their account. */
  async function brokenLinks(calls: ConfirmCall[]): Promise<unknown[]> {
    const { rows } = await h.admin.query(
      `SELECT l.id FROM (
         SELECT x.*, lag(x.chain_hash) OVER (PARTITION BY x.account_id ORDER BY x.chain_seq) AS before,
                lag(x.chain_seq) OVER (PARTITION BY x.account_id ORDER BY x.chain_seq) AS seq_before
           FROM ledger.ledgers x) l
         JOIN ledger.transactions t ON t.id = l.transaction_id
        WHERE t.intent_id = ANY ($1::uuid[])
          AND (l.chain_hash IS DISTINCT FROM ledger.chain_link(l.chain_prev, l.chain_seq, l.id, l.transaction_id, l.account_id, l.kind,
                 l.amount, l.currency::text, l.counterparty_ledger_id, l.created_at, t.reference_id, t.type, t.amount, t.fee,
                 t.currency::text, t.completed_at, t.intent_id, t.reversal_of)
               OR (l.seq_before = l.chain_seq - 1 AND l.chain_prev IS DISTINCT FROM l.before))`,
      [calls.map((a) => a.intent_id)],
    );
    return rows;
  }

  /**
   * A run's answers and rows with each time a confirm read (`times`, the answers' ISO strings) as
   * one token, in every form it is stored in, and without the entries' hashes (`brokenLinks`
   * checked them).
   */
  function sameClock<T>(run: T, times: string[]): T {
    let text = JSON.stringify(run);
    for (const t of new Set(times)) {
      // PostgreSQL's JSON of a timestamptz drops the fraction's trailing zeros (.820 → .82, .000 → none).
      const stored = t.replace(/\.?0*Z$/, '+00:00');
      text = text.split(t).join('<completed_at>').split(stored).join('<completed_at>');
    }
    return JSON.parse(text, (key, value: unknown) => (key === 'chain_prev' || key === 'chain_hash' ? undefined : value)) as T;
  }

  /** Runs `work` in a SERIALIZABLE transaction, fires its deferred checks, reads the state, rolls back. */
  async function rolledBack(
    work: () => Promise<Record<string, unknown>[]>,
    calls: ConfirmCall[],
    keys: string[],
  ): Promise<{ answers: unknown[]; state: unknown } | { error: string }> {
    await h.admin.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const rows = await work();
      await h.admin.query('SET CONSTRAINTS ALL IMMEDIATE');
      expect(await brokenLinks(calls)).toEqual([]);
      const times = rows.flatMap((r) => (typeof r.completed_at === 'string' ? [r.completed_at] : []));
      const answers = rows.map(({ lock_ms: _lockMs, ...rest }) => rest);
      return sameClock({ answers, state: await state(calls, keys) }, times);
    } catch (error) {
      return { error: (error as { code?: string }).code ?? String(error) };
    } finally {
      await h.admin.query('ROLLBACK');
    }
  }

  /** The calls one by one, as a group's batch sent them before the batch function. */
  const oneByOne = (calls: ConfirmCall[], keys: string[]) =>
    rolledBack(
      async () => {
        const rows: Record<string, unknown>[] = [];
        for (const call of calls) rows.push((await h.admin.query(EXECUTE_CONFIRM_CALL, [confirmCallLiteral(call)])).rows[0]);
        return rows;
      },
      calls,
      keys,
    );
  /** The same calls as one call of the batch function. */
  const batchOf = (calls: ConfirmCall[], keys: string[] = []) =>
    rolledBack(async () => (await h.admin.query(EXECUTE_CONFIRM_BATCH_CALL, confirmBatchValues(calls))).rows, calls, keys);

  propertyTest('answers and writes the same as the calls one by one, on random batches', BATCH_WORK, async () => {
    const seen = { ok: 0, refused: 0, failed: 0, repeated: 0, tightRefused: 0, sharedKey: 0, commissions: 0, capRefused: 0, capPassed: 0 };
    const keyArb = fc.option(fc.constantFrom('k1', 'k2', 'k3'), { freq: 2 });
    const variantArb: fc.Arbitrary<Variant> = fc.record({
      named: fc.boolean(),
      extra: fc.boolean(),
      earlier: fc.nat(3).map((n) => n === 0),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(pool.length - 1), keyArb, variantArb), { minLength: 1, maxLength: 8 }), async (picks) => {
        const chosen = picks.map(([at, key, variant]) => ({ call: pool[at], key, variant }));
        const calls: ConfirmCall[] = [];
        for (const { call, key, variant } of chosen) calls.push(await planCall(call, key, variant));
        const keys = chosen.flatMap(({ key }) => (key ? [key] : []));

        const sequential = await oneByOne(calls, keys);
        const batched = await batchOf(calls, keys);
        expect(batched).toEqual(sequential);

        if ('error' in sequential) seen.failed += 1;
        else {
          const answers = sequential.answers as { ok: boolean; refusal: string | null }[];
          seen.ok += answers.filter((a) => a.ok).length;
          seen.refused += answers.filter((a) => !a.ok).length;
          const succeeded = new Set<string>();
          chosen.forEach(({ call }, k) => {
            if (answers[k].ok) succeeded.add(call.intentId);
            else if (succeeded.has(call.intentId) && answers[k].refusal === 'INVALID_INTENT_TRANSITION') seen.repeated += 1;
            if (call.label.startsWith('tight') && answers[k].refusal === 'INSUFFICIENT_BALANCE') seen.tightRefused += 1;
            if (answers[k].refusal === 'LIMIT_BALANCE_CAP_EXCEEDED') seen.capRefused += 1;
            if (call.label.startsWith('capped #') && answers[k].ok) seen.capPassed += 1;
            // paid from the treasury, which starts at zero
            if (call.label.includes('commission') && answers[k].ok) seen.commissions += 1;
          });
        }
        if (new Set(keys).size < keys.length) seen.sharedKey += 1;
      }),
      // A fixed seed (FC_SEED explores others): the coverage checks below need a tight refusal, a
      // shared key… among the random batches, and a clock-drawn seed missed one in a run on 2026-11-28.
      { numRuns: BATCH_WORK.runs, seed: Number(process.env.FC_SEED ?? 20261128) },
    );
    // The batches covered what makes the two ways differ if the function is wrong.
    expect(seen.ok).toBeGreaterThan(50);
    expect(seen.refused).toBeGreaterThan(50);
    expect(seen.failed).toBeGreaterThan(0);
    expect(seen.repeated).toBeGreaterThan(0);
    expect(seen.tightRefused).toBeGreaterThan(0);
    expect(seen.sharedKey).toBeGreaterThan(0);
    expect(seen.commissions).toBeGreaterThan(0);
    expect(seen.capRefused).toBeGreaterThan(0);
    expect(seen.capPassed).toBeGreaterThan(0);
  });

  it('keeps no page-wide SERIALIZABLE read lock on the intents of a group (each one would turn concurrent writes to that page into 40001s)', async () => {
    // Lawful confirms of distinct intents, inserted together: several share a heap page.
    const lawful = ['c1→c2', 'c2→c1', 'c1→merchant', 'c2→merchant', 'tight #1', 'tight #2', 'tight #3', 'cash-in', 'poor'];
    const calls: ConfirmCall[] = [];
    for (const label of lawful)
      calls.push(
        await planCall(
          pool.find((p) => p.label === label)!,
          null,
        ),
      );
    // the premise: more intents than pages, so some page holds three or more of them
    const pages = await h.admin.query<{ n: number }>(
      `SELECT count(DISTINCT (ctid::text::point)[0])::int AS n FROM ledger.transaction_intents WHERE id = ANY ($1::uuid[])`,
      [calls.map((call) => call.intent_id)],
    );
    expect(pages.rows[0].n).toBeLessThan(lawful.length / 2);
    await h.admin.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const { rows } = await h.admin.query<{ ok: boolean }>(EXECUTE_CONFIRM_BATCH_CALL, confirmBatchValues(calls));
      expect(rows.map((r) => r.ok)).toEqual(lawful.map(() => true));
      const { rows: locks } = await h.admin.query<{ locktype: string }>(
        `SELECT locktype FROM pg_locks WHERE pid = pg_backend_pid() AND mode = 'SIReadLock' AND relation = 'ledger.transaction_intents'::regclass`,
      );
      expect(locks).toEqual([]);
    } finally {
      await h.admin.query('ROLLBACK');
    }
  });

  it('writes every attribute of ledger.confirm_call, in its order (a literal out of order would put values in the wrong fields)', async () => {
    const { rows } = await h.admin.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_attribute a WHERE a.attrelid = 'ledger.confirm_call'::regclass AND a.attnum > 0 AND NOT a.attisdropped
       ORDER BY a.attnum`,
    );
    expect(rows.map((r) => r.name)).toEqual([...CONFIRM_CALL_FIELDS]);
  });

  /** A call's values with its deltas changed by `edit` (what no plan produces: the database's guards must answer). */
  async function withDeltas(label: string, edit: (deltas: Delta[]) => Delta[]): Promise<ConfirmCall> {
    const args = await planCall(
      pool.find((p) => p.label === label)!,
      null,
    );
    args.deltas = JSON.stringify(edit(JSON.parse(args.deltas) as Delta[]));
    return args;
  }

  it('fails like the calls one by one when an account passes through a state its constraints refuse, even if a later call repairs it', async () => {
    // c1's frozen balance below zero after the first call (its available raised as much), back after the second.
    const shift = (amount: number) => (deltas: Delta[]) =>
      deltas.map((d) => (d.id === ids.c1 ? { ...d, frozen: d.frozen - amount, available: d.available + amount } : d));
    const frozen = [await withDeltas('c1→c2', shift(10 * RICH)), await withDeltas('c1→merchant', shift(-10 * RICH))];
    // the merchant's available below zero after the first call (moved to frozen: the balance stays), back after the second
    const lift = (amount: number) => (deltas: Delta[]) =>
      deltas.map((d) => (d.id === ids.merchant ? { ...d, available: d.available + amount, frozen: d.frozen - amount } : d));
    const available = [await withDeltas('c1→merchant', lift(-10 * RICH)), await withDeltas('c2→merchant', lift(10 * RICH))];
    // the merchant's balance no longer available + frozen after the first call, again after the second
    const skew = (amount: number) => (deltas: Delta[]) =>
      deltas.map((d) => (d.id === ids.merchant ? { ...d, balance: d.balance + amount } : d));
    const consistency = [await withDeltas('c1→merchant', skew(1)), await withDeltas('c2→merchant', skew(-1))];
    for (const calls of [frozen, available, consistency]) {
      expect(await oneByOne(calls, [])).toEqual({ error: '23514' });
      expect(await batchOf(calls)).toEqual({ error: '23514' });
    }
  });

  it('refuses a call it cannot reproduce exactly (a delta on an account the call does not lock), so the batch runs alone', async () => {
    const args = await withDeltas('c1→c2', (deltas) => [...deltas, { id: ids.merchant, balance: 0, available: 0, frozen: 0 }]);
    expect(await batchOf([args])).toEqual({ error: 'P0001' });
  });
});
