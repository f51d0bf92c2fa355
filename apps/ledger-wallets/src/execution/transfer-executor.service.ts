import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LEDGER_EVENT_TYPES, type TransactionCompletedEvent } from '@mm/contracts';
import type { DbSession } from '../db/db-session';
import { safeSum, sumCovers, toMoney } from '../db/money';
import { lit, uuidArrayLit, uuidLit } from '../db/sql-literal';
import type { ExecutionContextDto } from '../intents/dto/execution-context.dto';
import type { IdempotencyEntry } from '../idempotency/idempotency.service';
import type { IntentStatus } from '../intents/intent-state-machine';
import { type IntentRow, insufficientMessage } from '../intents/intent-view';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { TechnicalAccountsService } from '../wallets/technical-accounts.service';
import { type Posting, balanceDeltas, pairEntries } from './double-entry';
import { type IntentType, checkExecutionAccounts } from './execution-rules';
import { newReferenceId } from './reference-id';

/** Accounts a money operation touches, resolved before the locks are taken. */
export interface ResolvedContext {
  source: string;
  destination: string;
  amount: number;
  fee: number;
  feeAccount: string;
  commission: number;
  commissionFrom: string | null;
  commissionTo: string | null;
}

export interface ExecutionResult {
  transactionId: string;
  referenceId: string;
  amount: number;
  fee: number;
  commission: number;
  currency: string;
  completedAt: string;
}

export interface ExecutionMeta {
  createdBy: string;
  typeCode: string;
  agentId: string | null;
  description: string | null;
  extra?: Record<string, unknown>;
}

export interface ActorInfo {
  id: string;
  ip?: string;
  userAgent?: string;
}

export interface LockedAccount {
  id: string;
  account_type: string;
  wallet_id: string;
  currency: string;
  available_balance: string;
}

/**
 * Steps 2 to 8 of spec 2 "Atomic execution on SUCCEEDED", run inside the SERIALIZABLE transaction
 * the transition opened. Every value is computed here; the writes (transaction, entries, balances,
 * intent, event, outbox row) are one call of the database function `ledger.execute_intent`.
 */
@Injectable()
export class TransferExecutor {
  constructor(
    private readonly config: LedgerWalletsConfig,
    private readonly technical: TechnicalAccountsService,
  ) {}

  /**
   * The accounts of an execution context, with the default technical accounts filled in. Done
   * before the locks (it decides which accounts to lock); `checkAgainst` then compares the context
   * with the intent read under its lock.
   */
  async resolve(ctx: ExecutionContextDto): Promise<ResolvedContext> {
    const fee = ctx.fee?.amount ?? 0;
    const commission = ctx.commission?.amount ?? 0;
    // The source pays amount + fee: refused (422) when that sum is not an exact integer.
    safeSum(ctx.amount, fee);
    return {
      source: ctx.sourceAccountId.toLowerCase(),
      destination: ctx.destinationAccountId.toLowerCase(),
      amount: ctx.amount,
      fee,
      feeAccount: (ctx.fee?.accountId ?? (await this.technical.id('fee_collection', ctx.currency))).toLowerCase(),
      commission,
      commissionFrom:
        commission > 0 ? (ctx.commission?.fromAccountId ?? (await this.technical.id('treasury', ctx.currency))).toLowerCase() : null,
      commissionTo: commission > 0 ? ctx.commission!.accountId.toLowerCase() : null,
    };
  }

  checkAgainst(intent: IntentRow, ctx: ExecutionContextDto): void {
    const mismatch =
      ctx.sourceAccountId.toLowerCase() !== intent.source_account_id ||
      ctx.destinationAccountId.toLowerCase() !== intent.destination_account_id ||
      ctx.amount !== toMoney(intent.amount) ||
      ctx.currency !== intent.currency;
    if (mismatch) throw new AppException('EXECUTION_CONTEXT_MISMATCH', 'Accounts, amount and currency must be those of the intent');
  }

  accountsOf(r: ResolvedContext): string[] {
    const ids = [r.source, r.destination];
    if (r.fee > 0) ids.push(r.feeAccount);
    if (r.commission > 0) ids.push(r.commissionFrom!, r.commissionTo!);
    return ids;
  }

  /** Account checks that do not depend on balances: existence, currency, and the spec 2 rules of `execution-rules.ts`. */
  validateAccounts(
    intent: IntentRow,
    r: ResolvedContext,
    rows: { id: string; account_type: string; wallet_id: string; currency: string }[],
  ): void {
    const ids = [...new Set(this.accountsOf(r))];
    if (rows.length !== ids.length) throw new AppException('ACCOUNT_NOT_FOUND', 'An account of the execution context does not exist');
    if (rows.some((a) => a.currency.trim() !== intent.currency)) throw new AppException('CURRENCY_MISMATCH');
    const byId = new Map(rows.map((a) => [a.id, a]));
    checkExecutionAccounts({
      type: intent.type as IntentType,
      source: byId.get(r.source)!,
      destination: byId.get(r.destination)!,
      feeAccount: r.fee > 0 ? byId.get(r.feeAccount) : undefined,
      commissionFrom: r.commission > 0 ? byId.get(r.commissionFrom!) : undefined,
      commissionTo: r.commission > 0 ? byId.get(r.commissionTo!) : undefined,
    });
  }

  /**
   * Steps 3 to 8 inside a transaction that already locked the intent and the accounts (steps 1 and
   * 2, read together by the caller: `locked` are the rows of `accountsOf(r)`): the balance check,
   * then the writes through `ledger.execute_intent` (whose own re-check cannot fail here, under the
   * same locks and snapshot; if it ever did, nothing is written and the transaction rolls back).
   */
  async execute(
    s: DbSession,
    intent: IntentRow,
    r: ResolvedContext,
    locked: LockedAccount[],
    meta: ExecutionMeta,
    actor: ActorInfo,
  ): Promise<ExecutionResult> {
    this.validateAccounts(intent, r, locked);
    // Step 3: the hold goes back to available, then the real total must fit (compared exactly:
    // available + hold may exceed 2^53 − 1 even though each fits).
    const frozen = toMoney(intent.frozen_amount);
    const available = locked.find((a) => a.id === r.source)!.available_balance;
    const required = safeSum(r.amount, r.fee);
    if (!sumCovers(available, frozen, required)) {
      // Short of a total that is itself safe: available + hold is below it, so safe too.
      throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(toMoney(available) + frozen, required));
    }
    const plan = this.plan(intent, r, meta, actor);
    const [outcome] = await s.prepared<ExecutionOutcome>('ledger_execute_intent', EXECUTE_INTENT_CALL, plan.args);
    if (!outcome.ok) throw plan.refusal(outcome);
    return plan.result;
  }

  /**
   * Steps 3 to 8 as one call of `ledger.execute_intent` (migration 1764100000000), for
   * `LedgerDb.confirm` and the group commit: it locks the intent and the accounts itself (steps 1 and 2), checks
   * the intent is still `intent.status` and the source can pay (step 3) on the rows it locked, and
   * performs every write (transaction, entries, balances, intent, event, outbox, and the idempotent
   * response when `idempotent` is given) only if both hold. Every value is computed here, before
   * any lock is taken; the function only writes them.
   */
  plan(intent: IntentRow, r: ResolvedContext, meta: ExecutionMeta, actor: ActorInfo, idempotent?: IdempotentWrite): ExecutionPlan {
    const frozen = toMoney(intent.frozen_amount);
    const required = safeSum(r.amount, r.fee);
    const accountIds = [...new Set(this.accountsOf(r))].sort();
    const postings: Posting[] = [
      { from: r.source, to: r.destination, amount: r.amount },
      { from: r.source, to: r.feeAccount, amount: r.fee },
    ];
    if (r.commission > 0) postings.push({ from: r.commissionFrom!, to: r.commissionTo!, amount: r.commission });
    const legs = pairEntries(postings);
    const deltas = balanceDeltas(legs, { accountId: r.source, amount: frozen });

    const completedAt = new Date();
    const transactionId = randomUUID();
    const referenceId = newReferenceId(this.config.LEDGER_REFERENCE_PREFIX, completedAt);
    const correlationId = currentContext()?.correlationId ?? null;
    const metadata = {
      typeCode: meta.typeCode,
      agentId: meta.agentId,
      correlationId,
      intentId: intent.id,
      description: meta.description,
      ...(meta.extra ? { extra: meta.extra } : {}),
    };
    const outboxId = randomUUID();
    const event: TransactionCompletedEvent = {
      eventId: outboxId,
      type: LEDGER_EVENT_TYPES.transactionCompleted,
      occurredAt: completedAt.toISOString(),
      transactionId,
      referenceId,
      intentId: intent.id,
      intentType: intent.type as TransactionCompletedEvent['intentType'],
      amount: r.amount,
      fee: r.fee,
      commission: r.commission,
      currency: intent.currency,
      sourceAccountId: r.source,
      destinationAccountId: r.destination,
      qrToken: intent.qr_token,
      createdBy: meta.createdBy,
      typeCode: meta.typeCode,
      agentId: meta.agentId,
      correlationId,
    };
    // The values of `ledger.execute_intent`'s parameters, in its order (EXECUTE_INTENT_PARAMS): bound
    // as they are by the one-statement confirm, or written as literals into the text of a group.
    const args: unknown[] = [
      intent.id,
      intent.status,
      accountIds,
      r.source,
      frozen,
      required,
      transactionId,
      referenceId,
      intent.type,
      r.amount,
      r.fee,
      intent.currency,
      meta.createdBy,
      new Date(intent.created_at),
      completedAt,
      JSON.stringify(metadata),
      JSON.stringify(legs),
      JSON.stringify(deltas),
      actor.id,
      actor.ip ?? null,
      actor.userAgent ?? null,
      JSON.stringify({ transactionId, referenceId, correlationId, entries: legs.length }),
      outboxId,
      LEDGER_EVENT_TYPES.transactionCompleted,
      JSON.stringify(event),
    ];
    const result: ExecutionResult = {
      transactionId,
      referenceId,
      amount: r.amount,
      fee: r.fee,
      commission: r.commission,
      currency: intent.currency,
      completedAt: completedAt.toISOString(),
    };
    if (idempotent) {
      const { entry, status, body } = idempotent;
      args.push(entry.scope, entry.key, entry.hash, status, JSON.stringify(body(result)), entry.ttlHours);
    } else {
      args.push(null, null, null, null, null, null);
    }
    const refusal = (outcome: ExecutionOutcome): AppException => {
      if (outcome.intent_status !== intent.status) {
        return new AppException('INVALID_INTENT_TRANSITION', `Transition ${outcome.intent_status} → SUCCEEDED is not allowed`);
      }
      if (outcome.accounts_found !== accountIds.length) {
        return new AppException('ACCOUNT_NOT_FOUND', 'An account of the execution context does not exist');
      }
      return new AppException('INSUFFICIENT_BALANCE', insufficientMessage(Number(outcome.available) + frozen, required));
    };
    return {
      args,
      // Only a group commit's batch sends the call as text: built when asked.
      get sql() {
        return executeIntentSql(args);
      },
      result,
      refusal,
    };
  }
}

/** `ledger.execute_intent`'s parameters in order, each with how its value is written as a literal. */
const EXECUTE_INTENT_PARAMS: [name: string, kind: 'uuid' | 'uuid[]' | 'text' | 'int' | 'timestamptz' | 'jsonb'][] = [
  ['p_intent_id', 'uuid'],
  ['p_from_status', 'text'],
  ['p_account_ids', 'uuid[]'],
  ['p_source_id', 'uuid'],
  ['p_release', 'int'],
  ['p_required', 'int'],
  ['p_transaction_id', 'uuid'],
  ['p_reference_id', 'text'],
  ['p_type', 'text'],
  ['p_amount', 'int'],
  ['p_fee', 'int'],
  ['p_currency', 'text'],
  ['p_created_by', 'text'],
  ['p_initiated_at', 'timestamptz'],
  ['p_completed_at', 'timestamptz'],
  ['p_metadata', 'jsonb'],
  ['p_entries', 'jsonb'],
  ['p_deltas', 'jsonb'],
  ['p_actor_id', 'text'],
  ['p_ip', 'text'],
  ['p_user_agent', 'text'],
  ['p_event_metadata', 'jsonb'],
  ['p_outbox_id', 'uuid'],
  ['p_event_type', 'text'],
  ['p_payload', 'jsonb'],
  ['p_idem_scope', 'text'],
  ['p_idem_key', 'text'],
  ['p_idem_hash', 'text'],
  ['p_idem_status', 'int'],
  ['p_idem_body', 'text'],
  ['p_idem_ttl_hours', 'int'],
];

/** The call of `ledger.execute_intent` with its parameters bound (one named statement per connection). */
const EXECUTE_INTENT_CALL = `SELECT * FROM ledger.execute_intent(${EXECUTE_INTENT_PARAMS.map((_, k) => `$${k + 1}`).join(', ')})`;

/**
 * The call of `ledger.execute_intent` as one text statement, every value a literal (sql-literal.ts):
 * for a group commit's batch, several calls in one simple-protocol query, which takes no parameters.
 */
export function executeIntentSql(args: unknown[]): string {
  const parts = EXECUTE_INTENT_PARAMS.map(([name, kind], k) => {
    const v = args[k];
    if (v === null || v === undefined) return `${name} => NULL::${kind}`;
    switch (kind) {
      case 'uuid':
        return `${name} => ${uuidLit(v as string)}`;
      case 'uuid[]':
        return `${name} => ${uuidArrayLit(v as string[])}`;
      case 'jsonb':
        return `${name} => ${lit(v as string)}::jsonb`;
      case 'timestamptz':
        return `${name} => ${lit(v as Date)}`;
      case 'int':
        return `${name} => ${lit(v as number)}`;
      default:
        return `${name} => ${lit(v as string)}::text`;
    }
  });
  return `SELECT * FROM ledger.execute_intent(${parts.join(', ')})`;
}

/** What `ledger.execute_intent` answers: whether it wrote, and what it found on the locked rows. */
export interface ExecutionOutcome {
  ok: boolean;
  intent_status: IntentStatus | null;
  /** the source's available balance it saw (after the writes when ok), as text (bigint) */
  available: string | null;
  accounts_found: number;
  /** from the round trip's arrival to every lock held */
  lock_ms: number;
}

export interface ExecutionPlan {
  /** the values of `ledger.execute_intent`'s parameters, in order (bound by `LedgerDb.confirm`) */
  args: unknown[];
  /** `SELECT * FROM ledger.execute_intent(…)` with every value inlined (sql-literal.ts), built on demand */
  readonly sql: string;
  result: ExecutionResult;
  /** the error for an `ok: false` outcome: which re-check failed on the locked rows */
  refusal(outcome: ExecutionOutcome): AppException;
}

/** The idempotent response written by the same call: the key, and the body built from the execution's result. */
export interface IdempotentWrite {
  entry: IdempotencyEntry;
  status: number;
  body(result: ExecutionResult): unknown;
}
