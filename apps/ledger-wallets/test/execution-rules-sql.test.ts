import { randomUUID } from 'node:crypto';
import { AppException } from '@mm/errors';
import type { IntentType } from '@mm/contracts';
import { EXECUTE_CONFIRM_BATCH_CALL, EXECUTE_CONFIRM_CALL, confirmBatchValues, confirmCallLiteral } from '../src/db/execute-confirm-call';
import {
  type ExecutionOutcome,
  type ExecutionPlan,
  type ResolvedContext,
  TransferExecutor,
} from '../src/execution/transfer-executor.service';
import type { ExecutionContextDto } from '../src/intents/dto/execution-context.dto';
import { type IntentStatus, transitionEvent } from '../src/intents/intent-state-machine';
import type { IntentRow } from '../src/intents/intent-view';
import { TechnicalAccountsService } from '../src/wallets/technical-accounts.service';
import { type Harness, insertWallet, startLedger } from './ledger-harness';

/**
 * The account rules of a confirm are written once, in SQL (`ledger.account_rules_refusal`, asked by
 * `ledger.execute_confirm` on the rows it locks; docs/ledger.md, "Execution rules"). This file holds
 * that one source to the rules of docs/ledger.md, case by case over every account type in every
 * slot: the confirm runs through the service's own `TransferExecutor.plan` in a SERIALIZABLE
 * transaction that is rolled back, and its answer must be the one `expectedVerdict` (the documented
 * table, stated here as the test's oracle) gives, in the service's order of checks (state machine,
 * expiry, the context against the intent, existence, the wallets' status, currency, rules, balance);
 * `settle` must turn every refusal into its error code.
 */

const XAF_KINDS = [
  'customer',
  'merchant',
  'organisation',
  'agentA',
  'commissionA',
  'customerInA',
  'agentB',
  'commissionB',
  'systemCommission',
  'feeCollection',
  'treasury',
  'suspense',
  'black',
] as const;
type Kind = (typeof XAF_KINDS)[number];
/** Accounts outside the grid: other currency, an empty purse, an id no row has, wallets not ACTIVE. */
type Extra =
  | 'xofCustomer'
  | 'xofFeeCollection'
  | 'xofTreasury'
  | 'xofCommissionA'
  | 'poorCustomer'
  | 'missing'
  | 'closedCustomer'
  | 'suspendedMerchant';
type AnyKind = Kind | Extra;
const TYPES: IntentType[] = ['TRANSFER', 'CASH_IN', 'CASH_OUT'];

const AMOUNT = 100;
const FEE = 10;
const COMMISSION = 5;
const RICH = 1_000_000_000;

interface Account {
  id: string;
  account_type: string;
  wallet_id: string;
  /** its wallet's status: only ACTIVE sends or receives */
  wallet_status: string;
  currency: string;
  available: number;
}

/** One confirm: the intent it names and the execution context the caller sends. */
interface Case {
  label: string;
  intentId: string;
  source: AnyKind;
  destination: AnyKind;
  amount?: number;
  currency?: string;
  /** fee amount > 0 with its account ('default': the context names none, the service picks FEE_COLLECTION) */
  fee?: { amount?: number; to: AnyKind | 'default' };
  /** commission amount > 0 from → to ('default' from: the service picks TREASURY) */
  commission?: { amount?: number; from: AnyKind | 'default'; to: AnyKind };
}

interface Verdict {
  /** what the documented rules answer: an error code, or null for a confirm they let through */
  ts: string | null;
  outcome: ExecutionOutcome;
  /** what plan.settle(outcome) gave: null (returned the intent), an AppException's code, or a plain Error */
  settled: string | null | Error;
  plan: ExecutionPlan;
}

describe('ledger: execute_confirm applies the documented account rules case by case', () => {
  let h: Harness;
  let executor: TransferExecutor;
  /**
   * the clock every confirm is checked against (expiry boundaries are set from it); an hour ahead of
   * the database's, since a confirm judges expiry at the later of its call's time and the database's
   * once its locks are held (docs/ledger.md "Intents"): so the boundaries below are the ones judged
   */
  const now = new Date(Date.now() + 3_600_000);
  const ids = {} as Record<AnyKind, string>;
  const accounts = new Map<string, Account>();
  const intents = new Map<string, IntentRow>();
  /** grid intents at PIN_VERIFIED, one per (type, source, destination) */
  const gridIntent = new Map<string, string>();
  let before: string;

  /** Everything a refused or rolled-back confirm must leave as it was. */
  const snapshot = async (): Promise<string> => {
    const { rows } = await h.admin.query(
      `SELECT (SELECT count(*) FROM ledger.transactions) AS tx, (SELECT count(*) FROM ledger.ledgers) AS entries,
              (SELECT count(*) FROM ledger.outbox) AS outbox, (SELECT count(*) FROM ledger.intent_events) AS events,
              (SELECT json_agg(json_build_object('id', id, 's', status, 't', transaction_id) ORDER BY id) FROM ledger.transaction_intents) AS intents,
              (SELECT json_agg(json_build_object('id', id, 'b', balance, 'a', available_balance, 'f', frozen_balance) ORDER BY id) FROM ledger.accounts) AS accounts`,
    );
    return JSON.stringify(rows[0]);
  };

  beforeAll(async () => {
    h = await startLedger();
    executor = new TransferExecutor(h.app.config, h.app.app.get(TechnicalAccountsService));
    const db = h.admin;

    // Wallets and accounts straight in SQL: every account type the CHECK allows, two agents (a
    // commission account is in the agent's wallet or in another one), a customer account held in
    // an agent's wallet, and accounts of the other currency.
    const wallet = async (ownerType: string, rows: [name: AnyKind, type: string, currency: string][]) =>
      Object.assign(ids, await insertWallet(h, ownerType, rows));
    await wallet('USER', [
      ['customer', 'customer', 'XAF'],
      ['xofCustomer', 'customer', 'XOF'],
    ]);
    await wallet('USER', [['poorCustomer', 'customer', 'XAF']]);
    await wallet('MERCHANT', [['merchant', 'merchant', 'XAF']]);
    await wallet('ORGANISATION', [['organisation', 'organisation', 'XAF']]);
    // A customer whose wallet a registration's compensation closed, a merchant whose wallet is
    // SUSPENDED: both out of every money movement, whatever their balance.
    await wallet('USER', [['closedCustomer', 'customer', 'XAF']]);
    await wallet('MERCHANT', [['suspendedMerchant', 'merchant', 'XAF']]);
    for (const [kind, status] of [
      ['closedCustomer', 'CLOSED'],
      ['suspendedMerchant', 'SUSPENDED'],
    ] as const) {
      await db.query(`UPDATE ledger.wallets SET status = $2 WHERE id = (SELECT wallet_id FROM ledger.accounts WHERE id = $1)`, [
        ids[kind],
        status,
      ]);
    }
    await wallet('AGENT', [
      ['agentA', 'agent', 'XAF'],
      ['commissionA', 'agent_commission', 'XAF'],
      ['customerInA', 'customer', 'XAF'],
      ['xofCommissionA', 'agent_commission', 'XOF'],
    ]);
    await wallet('AGENT', [
      ['agentB', 'agent', 'XAF'],
      ['commissionB', 'agent_commission', 'XAF'],
    ]);
    // The technical accounts are the migration's (one per type and currency, UQ_accounts_technical).
    const technical = await db.query<{ id: string; account_type: string; currency: string }>(
      `SELECT a.id, a.account_type, a.currency FROM ledger.accounts a JOIN ledger.wallets w ON w.id = a.wallet_id WHERE w.owner_type = 'SYSTEM'`,
    );
    const tech = (type: string, currency: string) => technical.rows.find((r) => r.account_type === type && r.currency === currency)!.id;
    ids.systemCommission = tech('agent_commission', 'XAF');
    ids.feeCollection = tech('fee_collection', 'XAF');
    ids.treasury = tech('treasury', 'XAF');
    ids.suspense = tech('suspense', 'XAF');
    ids.black = tech('black', 'XAF');
    ids.xofFeeCollection = tech('fee_collection', 'XOF');
    ids.xofTreasury = tech('treasury', 'XOF');
    ids.missing = randomUUID();

    // Intents at PIN_VERIFIED, inserted as the service leaves them (amount held on the source). Every
    // confirm below is rolled back, so one intent per (type, source, destination) serves all its contexts.
    const specs: Record<string, unknown>[] = [];
    for (const type of TYPES) {
      for (const s of XAF_KINDS) {
        for (const d of XAF_KINDS) {
          if (s === d) continue;
          const id = randomUUID();
          gridIntent.set(`${type}:${s}:${d}`, id);
          specs.push(intentSpec(id, type, s, d));
        }
      }
    }
    for (const s of special) specs.push(s.spec());
    await db.query(
      `INSERT INTO ledger.transaction_intents (id, type, status, idempotency_key, source_account_id, destination_account_id, amount, fee,
         frozen_amount, currency, requires_otp, otp_user_id, initiated_by, expires_at)
       SELECT r.id, r.type, r.status, r.id::text, r.source, r.destination, r.amount, 0, r.amount, r.currency, r.requires_otp,
              CASE WHEN r.requires_otp THEN 'otp-user' END, 'rules-sql', r.expires_at
       FROM jsonb_to_recordset($1::jsonb) AS r (id uuid, type text, status text, source uuid, destination uuid, amount bigint, currency text,
              requires_otp boolean, expires_at timestamptz)`,
      [JSON.stringify(specs)],
    );
    // Balances: every source can pay (a rich purse plus the holds of its intents), except the
    // poor customer, whose purse is exactly its hold.
    await db.query(
      `UPDATE ledger.accounts a SET available_balance = v.available, frozen_balance = v.held, balance = v.available + v.held
       FROM (SELECT x.id, CASE WHEN x.id = $1 THEN 0 ELSE $2::bigint END AS available, coalesce(sum(i.frozen_amount), 0) AS held
             FROM ledger.accounts x LEFT JOIN ledger.transaction_intents i ON i.source_account_id = x.id GROUP BY x.id) v
       WHERE a.id = v.id`,
      [ids.poorCustomer, RICH],
    );
    const rows = await db.query<{
      id: string;
      account_type: string;
      wallet_id: string;
      wallet_status: string;
      currency: string;
      available_balance: string;
    }>(
      `SELECT a.id, a.account_type, a.wallet_id, w.status AS wallet_status, a.currency, a.available_balance
         FROM ledger.accounts a JOIN ledger.wallets w ON w.id = a.wallet_id`,
    );
    for (const r of rows.rows) accounts.set(r.id, { ...r, currency: r.currency.trim(), available: Number(r.available_balance) });
    // the grid holds every account type the accounts table's CHECK allows
    const { rows: check } = await db.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
       WHERE c.conrelid = 'ledger.accounts'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%account_type = ANY%'
         AND pg_get_constraintdef(c.oid) LIKE '%customer%'`,
    );
    expect(check).toHaveLength(1);
    const allowed = [...check[0].def.matchAll(/'(\w+)'::text/g)].map((m) => m[1]).sort();
    expect(allowed).toHaveLength(9);
    expect([...new Set(XAF_KINDS.map((k) => accounts.get(ids[k])!.account_type))].sort()).toEqual(allowed);
    const loaded = await db.query<IntentRow>(`SELECT * FROM ledger.transaction_intents`);
    for (const i of loaded.rows) intents.set(i.id, i);
    before = await snapshot();
  });
  afterAll(() => h?.close());

  function intentSpec(
    id: string,
    type: IntentType,
    s: AnyKind,
    d: AnyKind,
    extra: { status?: IntentStatus; currency?: string; requiresOtp?: boolean; expiresAt?: Date; expiresAtText?: string } = {},
  ) {
    return {
      id,
      type,
      status: extra.status ?? 'PIN_VERIFIED',
      source: ids[s],
      destination: ids[d],
      amount: AMOUNT,
      currency: extra.currency ?? 'XAF',
      requires_otp: extra.requiresOtp ?? false,
      expires_at: extra.expiresAtText ?? (extra.expiresAt ?? new Date(now.getTime() + 86_400_000)).toISOString(),
    };
  }

  /** Intents the order cases need, inserted with the grid (ids fixed now, accounts resolved then). */
  const special: { name: string; id: string; spec(): Record<string, unknown> }[] = [];
  const defineIntent = (name: string, make: (id: string) => Record<string, unknown>): string => {
    const id = randomUUID();
    special.push({ name, id, spec: () => make(id) });
    return id;
  };
  const pastDay = () => new Date(now.getTime() - 86_400_000);
  const STATUSES_NOT_CONFIRMABLE: IntentStatus[] = ['CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED'];
  const byStatus = Object.fromEntries(
    STATUSES_NOT_CONFIRMABLE.map((status) => [
      status,
      // bad accounts and already expired: the status must be what answers
      defineIntent(status, (id) =>
        intentSpec(id, 'TRANSFER', 'treasury', 'black', { status, requiresOtp: status.startsWith('OTP'), expiresAt: pastDay() }),
      ),
    ]),
  ) as Record<IntentStatus, string>;
  const pinAfterOtp = defineIntent('pinAfterOtp', (id) => intentSpec(id, 'TRANSFER', 'customer', 'merchant', { requiresOtp: true }));
  const expiresNow = defineIntent('expiresNow', (id) => intentSpec(id, 'TRANSFER', 'treasury', 'black', { expiresAt: now }));
  // Stored to the microsecond, half a millisecond after the clock: the service's clock has whole
  // milliseconds, so the deadline is read in milliseconds on both sides (expired).
  const expiresHalfMsLater = defineIntent('expiresHalfMsLater', (id) =>
    intentSpec(id, 'TRANSFER', 'customer', 'merchant', { expiresAtText: now.toISOString().replace(/Z$/, '500Z') }),
  );
  const expiredLongAgo = defineIntent('expiredLongAgo', (id) => intentSpec(id, 'CASH_IN', 'customer', 'agentA', { expiresAt: pastDay() }));
  const expiresInOneMs = defineIntent('expiresInOneMs', (id) =>
    intentSpec(id, 'TRANSFER', 'customer', 'merchant', { expiresAt: new Date(now.getTime() + 1) }),
  );
  const missingSource = defineIntent('missingSource', (id) => intentSpec(id, 'TRANSFER', 'missing', 'merchant'));
  const missingDestination = defineIntent('missingDestination', (id) => intentSpec(id, 'CASH_OUT', 'customer', 'missing'));
  const xofSource = defineIntent('xofSource', (id) => intentSpec(id, 'TRANSFER', 'xofCustomer', 'merchant'));
  const xofDestination = defineIntent('xofDestination', (id) => intentSpec(id, 'CASH_IN', 'agentA', 'xofCustomer'));
  const xofIntent = defineIntent('xofIntent', (id) => intentSpec(id, 'TRANSFER', 'xofCustomer', 'customer', { currency: 'XOF' }));
  const poor = defineIntent('poor', (id) => intentSpec(id, 'TRANSFER', 'poorCustomer', 'merchant'));
  const toClosed = defineIntent('toClosed', (id) => intentSpec(id, 'TRANSFER', 'customer', 'closedCustomer'));
  const fromClosed = defineIntent('fromClosed', (id) => intentSpec(id, 'TRANSFER', 'closedCustomer', 'merchant'));
  const toSuspended = defineIntent('toSuspended', (id) => intentSpec(id, 'CASH_IN', 'agentA', 'suspendedMerchant'));
  // a pair the rules refuse (a cash-out to a customer), into a closed wallet
  const closedBadPair = defineIntent('closedBadPair', (id) => intentSpec(id, 'CASH_OUT', 'customer', 'closedCustomer'));
  const closedExpired = defineIntent('closedExpired', (id) =>
    intentSpec(id, 'TRANSFER', 'customer', 'closedCustomer', { expiresAt: pastDay() }),
  );

  const grid = (type: IntentType, s: Kind, d: Kind) => gridIntent.get(`${type}:${s}:${d}`)!;

  /** The execution context the orchestrator would send for a case. */
  function contextOf(c: Case): ExecutionContextDto {
    const fee = c.fee ? { amount: c.fee.amount ?? FEE, ...(c.fee.to === 'default' ? {} : { accountId: ids[c.fee.to] }) } : undefined;
    const commission = c.commission
      ? {
          amount: c.commission.amount ?? COMMISSION,
          accountId: ids[c.commission.to],
          ...(c.commission.from === 'default' ? {} : { fromAccountId: ids[c.commission.from] }),
        }
      : undefined;
    return {
      sourceAccountId: ids[c.source],
      destinationAccountId: ids[c.destination],
      amount: c.amount ?? AMOUNT,
      currency: c.currency ?? 'XAF',
      ...(fee ? { fee } : {}),
      ...(commission ? { commission } : {}),
    } as ExecutionContextDto;
  }

  /**
   * The documented answer (docs/ledger.md), in the service's order: state machine, expiry, context
   * against the intent, then the accounts as they are stored (existence, currency, the rules
   * table), then the balance (the hold goes back to available first).
   */
  function tsVerdict(intentId: string, ctx: ExecutionContextDto, resolved: ResolvedContext): string | null {
    try {
      const intent = intents.get(intentId);
      if (!intent) throw new AppException('INTENT_NOT_FOUND');
      if (!transitionEvent(intent.status, 'SUCCEEDED', intent.requires_otp)) throw new AppException('INVALID_INTENT_TRANSITION');
      if (new Date(intent.expires_at).getTime() <= now.getTime()) throw new AppException('INTENT_EXPIRED');
      const mismatch =
        ctx.sourceAccountId.toLowerCase() !== intent.source_account_id ||
        ctx.destinationAccountId.toLowerCase() !== intent.destination_account_id ||
        ctx.amount !== Number(intent.amount) ||
        ctx.currency !== intent.currency;
      if (mismatch) throw new AppException('EXECUTION_CONTEXT_MISMATCH');
      const rows = [...new Set(executor.accountsOf(resolved))].flatMap((id) => {
        const a = accounts.get(id);
        return a
          ? [{ id: a.id, account_type: a.account_type, wallet_id: a.wallet_id, wallet_status: a.wallet_status, currency: a.currency }]
          : [];
      });
      const rule = documentedRules(intent.type as IntentType, intent.currency, resolved, rows);
      if (rule) return rule;
      const source = accounts.get(resolved.source)!;
      if (source.available + Number(intent.frozen_amount) < resolved.amount + resolved.fee) return 'INSUFFICIENT_BALANCE';
      return null;
    } catch (error) {
      if (error instanceof AppException) return error.code;
      throw error;
    }
  }

  /**
   * The rules of docs/ledger.md ("Execution rules") on the stored accounts of a context: every account
   * exists, every account's wallet is ACTIVE ("Wallets and accounts"), all share the intent's currency, the pair's types are the intent type's, a fee goes to
   * FEE_COLLECTION, a commission exists only on a cash operation, comes from TREASURY and goes to the
   * agent_commission account in the agent float's wallet. The first rule broken, or null.
   */
  function documentedRules(
    type: IntentType,
    currency: string,
    r: ResolvedContext,
    rows: { id: string; account_type: string; wallet_id: string; wallet_status: string; currency: string }[],
  ): string | null {
    if (rows.length !== new Set(executor.accountsOf(r)).size) return 'ACCOUNT_NOT_FOUND';
    if (rows.some((a) => a.wallet_status !== 'ACTIVE')) return 'ACCOUNT_NOT_ALLOWED';
    if (rows.some((a) => a.currency !== currency)) return 'CURRENCY_MISMATCH';
    const of = (id: string | null) => rows.find((a) => a.id === id);
    const source = of(r.source)!;
    const destination = of(r.destination)!;
    const customerSide = ['customer', 'merchant'];
    const pairs: Record<IntentType, [string[], string[]]> = {
      TRANSFER: [customerSide, customerSide],
      CASH_IN: [['agent'], customerSide],
      CASH_OUT: [customerSide, ['agent']],
    };
    const [sources, destinations] = pairs[type];
    if (!sources.includes(source.account_type) || !destinations.includes(destination.account_type)) return 'ACCOUNT_TYPE_NOT_ALLOWED';
    if (r.fee > 0 && of(r.feeAccount)!.account_type !== 'fee_collection') return 'FEE_ACCOUNT_NOT_ALLOWED';
    if (r.commission > 0) {
      const agent = type === 'CASH_IN' ? source : type === 'CASH_OUT' ? destination : null;
      if (!agent) return 'COMMISSION_NOT_ALLOWED';
      if (of(r.commissionFrom)!.account_type !== 'treasury') return 'COMMISSION_SOURCE_NOT_ALLOWED';
      const to = of(r.commissionTo)!;
      if (to.account_type !== 'agent_commission' || to.wallet_id !== agent.wallet_id) return 'COMMISSION_NOT_ALLOWED';
    }
    return null;
  }

  /** The SQL answer: the function called with the plan's own arguments, in a transaction that is rolled back. */
  async function run(plan: ExecutionPlan): Promise<ExecutionOutcome> {
    await h.admin.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const { rows } = await h.admin.query<ExecutionOutcome>(EXECUTE_CONFIRM_CALL, [confirmCallLiteral(plan.call)]);
      return rows[0];
    } finally {
      await h.admin.query('ROLLBACK');
    }
  }

  /** The group commit's answer to the same call alone (`ledger.execute_confirm_batch`), rolled back too. */
  async function runBatch(plan: ExecutionPlan): Promise<ExecutionOutcome> {
    await h.admin.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const { rows } = await h.admin.query<ExecutionOutcome>(EXECUTE_CONFIRM_BATCH_CALL, confirmBatchValues([plan.call]));
      return rows[0];
    } finally {
      await h.admin.query('ROLLBACK');
    }
  }

  async function verdict(c: Case): Promise<Verdict> {
    const ctx = contextOf(c);
    const resolved = await executor.resolve(ctx);
    const plan = executor.plan({
      intentId: c.intentId,
      resolved,
      currency: ctx.currency,
      meta: { createdBy: null, typeCode: 'RULES', agentId: null, description: null },
      actor: { id: 'rules-sql' },
      now,
    });
    const outcome = await run(plan);
    let settled: string | null | Error;
    try {
      const intent = plan.settle(outcome);
      settled = intent.id === c.intentId ? null : new Error(`settle returned intent ${intent.id}`);
    } catch (error) {
      settled = error instanceof AppException ? error.code : (error as Error);
    }
    return { ts: tsVerdict(c.intentId, ctx, resolved), outcome, settled, plan };
  }

  /** What is wrong with a case's answers, or null when the SQL, the TypeScript and settle agree. */
  function disagreement(c: Case, v: Verdict, expected?: string | null): string | null {
    const sql = v.outcome.refusal;
    const problems: string[] = [];
    if (expected !== undefined && v.ts !== expected) problems.push(`ts ${v.ts} (expected ${expected})`);
    if (sql !== v.ts) problems.push(`sql ${sql} but ts ${v.ts}`);
    if (v.outcome.ok !== (sql === null)) problems.push(`ok ${v.outcome.ok} with refusal ${sql}`);
    if (v.settled instanceof Error) problems.push(`settle gave a plain Error: ${v.settled.message}`);
    else if (v.settled !== sql) problems.push(`settle ${v.settled} for refusal ${sql}`);
    return problems.length ? `${c.label}: ${problems.join('; ')}` : null;
  }

  const label = (type: string, s: string, d: string, c: Pick<Case, 'fee' | 'commission'>) =>
    `${type} ${s}→${d} fee:${c.fee ? c.fee.to : '-'} commission:${c.commission ? `${c.commission.from}→${c.commission.to}` : '-'}`;

  /** The agent float's commission account for a lawful pair (the wallet the commission must go to). */
  const agentCommission = (type: IntentType, s: Kind, d: Kind): Kind => {
    const agent = type === 'CASH_IN' ? s : type === 'CASH_OUT' ? d : 'agentA';
    return agent === 'agentB' ? 'commissionB' : 'commissionA';
  };

  it('answers as the documented rules over every type × source × destination × fee account × commission accounts', async () => {
    const cases = new Map<string, Case>();
    const add = (type: IntentType, s: Kind, d: Kind, c: Pick<Case, 'fee' | 'commission'>) => {
      const l = label(type, s, d, c);
      cases.set(l, { label: l, intentId: grid(type, s, d), source: s, destination: d, ...c });
    };
    const pairs = TYPES.flatMap((type) => XAF_KINDS.flatMap((s) => XAF_KINDS.filter((d) => d !== s).map((d) => [type, s, d] as const)));
    // The lawful pairs, found by the documented rules on a bare context (18 by the table of
    // docs/ledger.md "Execution rules": 6 transfers among the three customer-type accounts,
    // 6 cash-ins, 6 cash-outs).
    const lawful = pairs.filter(([type, s, d]) => {
      const ctx = contextOf({ label: '', intentId: '', source: s, destination: d });
      const r = {
        source: ids[s],
        destination: ids[d],
        amount: AMOUNT,
        fee: 0,
        feeAccount: ids.feeCollection,
        commission: 0,
        commissionFrom: null,
        commissionTo: null,
      };
      return tsVerdict(grid(type, s, d), ctx, r) === null;
    });
    expect(lawful).toHaveLength(18);

    // 1. The intent's own two accounts: every pair, bare and with a fee / commission on top (the
    //    pair's rule answers before the slots').
    for (const [type, s, d] of pairs) {
      add(type, s, d, {});
      add(type, s, d, { fee: { to: 'feeCollection' } });
      add(type, s, d, { fee: { to: 'customer' } });
      add(type, s, d, { commission: { from: 'treasury', to: 'commissionA' } });
      add(type, s, d, { commission: { from: 'treasury', to: 'commissionB' } });
      add(type, s, d, { fee: { to: 'default' }, commission: { from: 'default', to: agentCommission(type, s, d) } });
    }
    for (const [type, s, d] of lawful) {
      // 2. The fee slot: every account type, with and without a lawful commission.
      for (const f of [...XAF_KINDS, 'default' as const]) {
        add(type, s, d, { fee: { to: f } });
        add(type, s, d, { fee: { to: f }, commission: { from: 'treasury', to: agentCommission(type, s, d) } });
      }
      // 3. The commission slots: every source × every destination, without and with a lawful fee.
      for (const from of [...XAF_KINDS, 'default' as const]) {
        for (const to of XAF_KINDS) {
          add(type, s, d, { commission: { from, to } });
          add(type, s, d, { fee: { to: 'feeCollection' }, commission: { from, to } });
        }
      }
      // 4. Fee before commission: a bad fee with each kind of bad commission.
      for (const f of ['customer', 'treasury', 'commissionA'] as const) {
        for (const [from, to] of [
          ['customer', 'commissionA'],
          ['treasury', 'customer'],
          ['treasury', 'commissionB'],
          ['agentA', 'agentA'],
        ] as const) {
          add(type, s, d, { fee: { to: f }, commission: { from, to } });
        }
      }
      // 5. A slot whose amount is zero is not an account of the confirm, whatever it names.
      add(type, s, d, { fee: { amount: 0, to: 'black' }, commission: { amount: 0, from: 'customer', to: 'black' } });
    }

    const problems: string[] = [];
    const seen = new Map<string | null, number>();
    for (const c of cases.values()) {
      const v = await verdict(c);
      const p = disagreement(c, v);
      if (p) problems.push(p);
      seen.set(v.outcome.refusal, (seen.get(v.outcome.refusal) ?? 0) + 1);
    }
    expect(problems).toEqual([]);
    // Each rule both accepts and refuses somewhere in the grid, or the agreement proves little.
    expect(cases.size).toBeGreaterThan(5_000);
    const answers = [
      'ok',
      'ACCOUNT_TYPE_NOT_ALLOWED',
      'FEE_ACCOUNT_NOT_ALLOWED',
      'COMMISSION_NOT_ALLOWED',
      'COMMISSION_SOURCE_NOT_ALLOWED',
    ];
    expect([...seen.keys()].map((k) => k ?? 'ok').sort()).toEqual([...answers].sort());
    expect(answers.filter((a) => (seen.get(a === 'ok' ? null : a) ?? 0) < 50)).toEqual([]);
    // Every confirm was rolled back: nothing written, no balance moved.
    expect(await snapshot()).toBe(before);
  }, 120_000);

  it('agrees with the documented rules on their boundaries, written out by hand', async () => {
    // The boundaries of docs/ledger.md "Execution rules", independent of the oracle: if it and the
    // SQL changed the same wrong way, this still fails.
    const anchors: [IntentType, Kind, Kind, Pick<Case, 'fee' | 'commission'>, string | null][] = [
      ['TRANSFER', 'customer', 'merchant', {}, null],
      ['TRANSFER', 'merchant', 'customerInA', { fee: { to: 'feeCollection' } }, null],
      ['TRANSFER', 'organisation', 'customer', {}, 'ACCOUNT_TYPE_NOT_ALLOWED'],
      ['TRANSFER', 'agentA', 'customer', {}, 'ACCOUNT_TYPE_NOT_ALLOWED'],
      ['TRANSFER', 'customer', 'merchant', { commission: { from: 'treasury', to: 'commissionA' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_IN', 'customer', 'agentA', {}, 'ACCOUNT_TYPE_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'agentB', {}, 'ACCOUNT_TYPE_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { fee: { to: 'feeCollection' }, commission: { from: 'treasury', to: 'commissionA' } }, null],
      ['CASH_IN', 'agentA', 'customerInA', { commission: { from: 'treasury', to: 'commissionA' } }, null],
      ['CASH_IN', 'agentB', 'customerInA', { commission: { from: 'treasury', to: 'commissionA' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { commission: { from: 'treasury', to: 'commissionB' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { commission: { from: 'treasury', to: 'systemCommission' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { commission: { from: 'treasury', to: 'agentA' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { commission: { from: 'treasury', to: 'customerInA' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { commission: { from: 'suspense', to: 'commissionA' } }, 'COMMISSION_SOURCE_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { commission: { from: 'customer', to: 'commissionB' } }, 'COMMISSION_SOURCE_NOT_ALLOWED'],
      ['CASH_IN', 'agentA', 'customer', { fee: { to: 'treasury' } }, 'FEE_ACCOUNT_NOT_ALLOWED'],
      [
        'CASH_IN',
        'agentA',
        'customer',
        { fee: { to: 'customer' }, commission: { from: 'customer', to: 'black' } },
        'FEE_ACCOUNT_NOT_ALLOWED',
      ],
      ['CASH_OUT', 'customer', 'merchant', {}, 'ACCOUNT_TYPE_NOT_ALLOWED'],
      ['CASH_OUT', 'customerInA', 'agentB', { commission: { from: 'treasury', to: 'commissionA' } }, 'COMMISSION_NOT_ALLOWED'],
      ['CASH_OUT', 'customerInA', 'agentB', { commission: { from: 'default', to: 'commissionB' } }, null],
      ['CASH_OUT', 'merchant', 'agentA', { fee: { to: 'default' }, commission: { from: 'treasury', to: 'commissionA' } }, null],
    ];
    const problems: string[] = [];
    for (const [type, s, d, slots, expected] of anchors) {
      const c: Case = { label: label(type, s, d, slots), intentId: grid(type, s, d), source: s, destination: d, ...slots };
      const p = disagreement(c, await verdict(c), expected);
      if (p) problems.push(p);
    }
    expect(problems).toEqual([]);
  });

  it('refuses in the service’s order: intent, status, expiry, context, existence, wallet status, currency, rules, balance', async () => {
    const bad: Pick<Case, 'fee' | 'commission'> = { fee: { to: 'customer' }, commission: { from: 'customer', to: 'black' } };
    const cases: [Case, string | null][] = [
      // no intent at all
      [{ label: 'unknown intent', intentId: randomUUID(), source: 'treasury', destination: 'black', ...bad }, 'INTENT_NOT_FOUND'],
      // a status the state machine does not confirm from, with bad accounts, a wrong amount, expired
      ...STATUSES_NOT_CONFIRMABLE.map((status): [Case, string] => [
        { label: `status ${status}`, intentId: byStatus[status], source: 'treasury', destination: 'black', amount: 101, ...bad },
        'INVALID_INTENT_TRANSITION',
      ]),
      [{ label: 'PIN_VERIFIED through the OTP branch', intentId: pinAfterOtp, source: 'customer', destination: 'merchant' }, null],
      // expired (expires_at = now is expired), with bad accounts and a wrong context; deadlines in whole
      // milliseconds, the unit of the clock the service passes
      [{ label: 'expires now', intentId: expiresNow, source: 'treasury', destination: 'black', amount: 101, ...bad }, 'INTENT_EXPIRED'],
      [
        { label: 'expired', intentId: expiredLongAgo, source: 'customer', destination: 'merchant', currency: 'XOF', ...bad },
        'INTENT_EXPIRED',
      ],
      [{ label: 'expires in 1 ms', intentId: expiresInOneMs, source: 'customer', destination: 'merchant' }, null],
      [{ label: 'expires 0.5 ms after now', intentId: expiresHalfMsLater, source: 'customer', destination: 'merchant' }, 'INTENT_EXPIRED'],
      // the context against the intent, before any account is looked at
      ...(
        [
          ['other source', { source: 'organisation' }],
          ['other destination', { destination: 'missing' }],
          ['other amount', { amount: 99 }],
          ['other currency', { currency: 'XOF' }],
        ] as const
      ).map(([what, change]): [Case, string] => [
        {
          label: `context: ${what}`,
          intentId: grid('TRANSFER', 'customer', 'merchant'),
          source: 'customer',
          destination: 'merchant',
          ...bad,
          ...change,
        },
        'EXECUTION_CONTEXT_MISMATCH',
      ]),
      [
        {
          label: 'context: amount, bad pair',
          intentId: grid('CASH_IN', 'treasury', 'black'),
          source: 'treasury',
          destination: 'black',
          amount: 1,
        },
        'EXECUTION_CONTEXT_MISMATCH',
      ],
      // an account that does not exist, in each slot, before the other currency and the rules
      [
        { label: 'missing source', intentId: missingSource, source: 'missing', destination: 'merchant', fee: { to: 'xofFeeCollection' } },
        'ACCOUNT_NOT_FOUND',
      ],
      [
        { label: 'missing destination', intentId: missingDestination, source: 'customer', destination: 'missing', ...bad },
        'ACCOUNT_NOT_FOUND',
      ],
      [
        {
          label: 'missing fee account',
          intentId: grid('TRANSFER', 'treasury', 'black'),
          source: 'treasury',
          destination: 'black',
          fee: { to: 'missing' },
          commission: { from: 'xofTreasury', to: 'black' },
        },
        'ACCOUNT_NOT_FOUND',
      ],
      [
        {
          label: 'missing commission source',
          intentId: grid('CASH_IN', 'agentA', 'customer'),
          source: 'agentA',
          destination: 'customer',
          fee: { to: 'xofFeeCollection' },
          commission: { from: 'missing', to: 'commissionA' },
        },
        'ACCOUNT_NOT_FOUND',
      ],
      [
        {
          label: 'missing commission account',
          intentId: grid('TRANSFER', 'customer', 'merchant'),
          source: 'customer',
          destination: 'merchant',
          commission: { from: 'treasury', to: 'missing' },
        },
        'ACCOUNT_NOT_FOUND',
      ],
      // an account whose wallet is not ACTIVE, in each slot, after existence and before the other
      // currency and the rules (ACCOUNT_NOT_ALLOWED)
      [
        { label: 'closed destination', intentId: toClosed, source: 'customer', destination: 'closedCustomer', ...bad },
        'ACCOUNT_NOT_ALLOWED',
      ],
      [{ label: 'closed source', intentId: fromClosed, source: 'closedCustomer', destination: 'merchant' }, 'ACCOUNT_NOT_ALLOWED'],
      [
        { label: 'suspended destination', intentId: toSuspended, source: 'agentA', destination: 'suspendedMerchant' },
        'ACCOUNT_NOT_ALLOWED',
      ],
      [{ label: 'closed, bad pair', intentId: closedBadPair, source: 'customer', destination: 'closedCustomer' }, 'ACCOUNT_NOT_ALLOWED'],
      [
        {
          label: 'closed, XOF fee account',
          intentId: toClosed,
          source: 'customer',
          destination: 'closedCustomer',
          fee: { to: 'xofFeeCollection' },
        },
        'ACCOUNT_NOT_ALLOWED',
      ],
      [
        {
          label: 'closed, missing fee account',
          intentId: toClosed,
          source: 'customer',
          destination: 'closedCustomer',
          fee: { to: 'missing' },
        },
        'ACCOUNT_NOT_FOUND',
      ],
      [
        {
          label: 'closed fee account',
          intentId: grid('TRANSFER', 'customer', 'merchant'),
          source: 'customer',
          destination: 'merchant',
          fee: { to: 'closedCustomer' },
        },
        'ACCOUNT_NOT_ALLOWED',
      ],
      [
        {
          label: 'suspended commission account',
          intentId: grid('CASH_IN', 'agentA', 'customer'),
          source: 'agentA',
          destination: 'customer',
          commission: { from: 'treasury', to: 'suspendedMerchant' },
        },
        'ACCOUNT_NOT_ALLOWED',
      ],
      [{ label: 'closed, expired', intentId: closedExpired, source: 'customer', destination: 'closedCustomer' }, 'INTENT_EXPIRED'],
      [
        { label: 'closed, other amount', intentId: toClosed, source: 'customer', destination: 'closedCustomer', amount: 99 },
        'EXECUTION_CONTEXT_MISMATCH',
      ],
      // an account of the other currency, in each slot, before the rules
      [{ label: 'XOF source', intentId: xofSource, source: 'xofCustomer', destination: 'merchant', ...bad }, 'CURRENCY_MISMATCH'],
      [{ label: 'XOF destination', intentId: xofDestination, source: 'agentA', destination: 'xofCustomer', ...bad }, 'CURRENCY_MISMATCH'],
      [
        { label: 'XAF destination of an XOF intent', intentId: xofIntent, source: 'xofCustomer', destination: 'customer', currency: 'XOF' },
        'CURRENCY_MISMATCH',
      ],
      [
        {
          label: 'XOF fee account',
          intentId: grid('CASH_OUT', 'organisation', 'black'),
          source: 'organisation',
          destination: 'black',
          fee: { to: 'xofFeeCollection' },
        },
        'CURRENCY_MISMATCH',
      ],
      [
        {
          label: 'XOF commission source',
          intentId: grid('TRANSFER', 'customer', 'merchant'),
          source: 'customer',
          destination: 'merchant',
          commission: { from: 'xofTreasury', to: 'commissionA' },
        },
        'CURRENCY_MISMATCH',
      ],
      [
        {
          label: 'XOF commission account',
          intentId: grid('CASH_IN', 'agentA', 'customer'),
          source: 'agentA',
          destination: 'customer',
          fee: { to: 'black' },
          commission: { from: 'treasury', to: 'xofCommissionA' },
        },
        'CURRENCY_MISMATCH',
      ],
      // the balance last: the hold goes back first, so exactly the hold pays the amount
      [{ label: 'poor: amount = hold', intentId: poor, source: 'poorCustomer', destination: 'merchant' }, null],
      [
        { label: 'poor: plus a fee', intentId: poor, source: 'poorCustomer', destination: 'merchant', fee: { to: 'default' } },
        'INSUFFICIENT_BALANCE',
      ],
      [
        { label: 'poor: bad fee account', intentId: poor, source: 'poorCustomer', destination: 'merchant', fee: { to: 'customer' } },
        'FEE_ACCOUNT_NOT_ALLOWED',
      ],
      [
        {
          label: 'poor: commission',
          intentId: poor,
          source: 'poorCustomer',
          destination: 'merchant',
          fee: { to: 'feeCollection' },
          commission: { from: 'treasury', to: 'commissionA' },
        },
        'COMMISSION_NOT_ALLOWED',
      ],
    ];
    const problems: string[] = [];
    for (const [c, expected] of cases) {
      const v = await verdict(c);
      const p = disagreement(c, v, expected);
      if (p) problems.push(p);
      // The group commit's function answers each of these exactly as execute_confirm does.
      const batch = await runBatch(v.plan);
      const same = (o: ExecutionOutcome) => ({ ok: o.ok, refusal: o.refusal, available: o.available, accounts: o.accounts });
      if (JSON.stringify(same(batch)) !== JSON.stringify(same(v.outcome))) {
        problems.push(`${c.label}: batch ${JSON.stringify(same(batch))} but alone ${JSON.stringify(same(v.outcome))}`);
      }
      if (c.label === 'poor: plus a fee') {
        expect(v.outcome.available).toBe('0');
        expect(() => v.plan.settle(v.outcome)).toThrow('available 100, required 110');
      }
    }
    expect(problems).toEqual([]);
    expect(await snapshot()).toBe(before);
  });
});
