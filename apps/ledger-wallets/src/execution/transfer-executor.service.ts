import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LEDGER_EVENT_TYPES, type TransactionCompletedEvent } from '@mm/contracts';
import type { DbSession } from '../db/db-session';
import { safeSum, sumCovers, toMoney } from '../db/money';
import { lit, uuidArrayLit, uuidLit } from '../db/sql-literal';
import type { ExecutionContextDto } from '../intents/dto/execution-context.dto';
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
 * the transition opened (step 1, the intent row lock, is the caller's). Everything after the
 * checks is one statement: transaction, entries, balances, intent, event and the outbox row.
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
   * Steps 3 to 8, with the intent and the accounts already locked (steps 1 and 2, read together by
   * the caller in one round trip: `locked` are the rows of `accountsOf(r)`). The writes are one
   * statement sent in the COMMIT round trip.
   */
  execute(
    s: DbSession,
    intent: IntentRow,
    r: ResolvedContext,
    locked: LockedAccount[],
    meta: ExecutionMeta,
    actor: ActorInfo,
  ): ExecutionResult {
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
    const plan = this.writes(intent, r, meta, actor);
    s.beforeCommit = `WITH ${plan.ctes.join(',\n')} ${plan.last}`;
    return plan.result;
  }

  /**
   * The same execution as one guarded statement for `LedgerDb.singleStatement`: it locks the
   * intent and the accounts itself (steps 1 and 2), checks the intent is still PIN_VERIFIED and
   * the source can pay (step 3) on the rows it locked, and performs every write only if both hold.
   * It returns one row `{ ok, status, available }` telling the caller which check failed.
   */
  guarded(
    intent: IntentRow,
    r: ResolvedContext,
    meta: ExecutionMeta,
    actor: ActorInfo,
  ): { sql: string; result: ExecutionResult; required: number; frozen: number } {
    const ids = [...new Set(this.accountsOf(r))].sort();
    const frozen = toMoney(intent.frozen_amount);
    const required = safeSum(r.amount, r.fee);
    const guard = '(SELECT ok FROM g)';
    const plan = this.writes(intent, r, meta, actor, guard);
    const sql = `WITH li AS (SELECT status FROM ledger.transaction_intents WHERE id = ${uuidLit(intent.id)} FOR UPDATE),
       la AS (SELECT id, available_balance FROM ledger.accounts WHERE id = ANY(${uuidArrayLit(ids)}) ORDER BY id FOR UPDATE),
       g AS (
         SELECT COALESCE((SELECT status FROM li) = 'PIN_VERIFIED', false)
                  AND COALESCE((SELECT available_balance FROM la WHERE id = ${uuidLit(r.source)}), 0) + ${lit(frozen)} >= ${lit(required)}
                  AND (SELECT count(*) FROM la) = ${lit(ids.length)} AS ok,
                (SELECT status FROM li) AS status,
                (SELECT available_balance FROM la WHERE id = ${uuidLit(r.source)})::text AS available),
       ${plan.ctes.join(',\n')},
       o AS (${plan.last})
     SELECT ok, status, available FROM g`;
    return { sql, result: plan.result, required, frozen };
  }

  /** Steps 4 to 8 and the outbox row as CTEs (values inlined, see sql-literal.ts); with `guard`, each write happens only if it holds. */
  private writes(
    intent: IntentRow,
    r: ResolvedContext,
    meta: ExecutionMeta,
    actor: ActorInfo,
    guard?: string,
  ): { ctes: string[]; last: string; result: ExecutionResult } {
    const frozen = toMoney(intent.frozen_amount);
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
    const where = guard ? ` WHERE ${guard}` : '';
    const and = guard ? ` AND ${guard}` : '';
    const at = lit(completedAt);
    const ctes = [
      `t AS (
         INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
         SELECT ${uuidLit(transactionId)}, ${lit(referenceId)}, ${lit(intent.type)}, ${uuidLit(intent.id)}, ${lit(r.amount)}, ${lit(r.fee)},
                ${lit(intent.currency)}, ${lit(meta.createdBy)}, ${lit(new Date(intent.created_at))}, ${at}, ${lit(JSON.stringify(metadata))}::jsonb${where}
         RETURNING id)`,
      `l AS (
         INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
         SELECT e.id, t.id, e.account_id, e.kind, e.amount, ${lit(intent.currency)}, e.counterparty_id, ${lit(meta.createdBy)}, ${at}
         FROM t CROSS JOIN jsonb_to_recordset(${lit(JSON.stringify(legs))}::jsonb) AS e(id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid))`,
      `b AS (
         UPDATE ledger.accounts a SET balance = a.balance + d.balance, available_balance = a.available_balance + d.available,
           frozen_balance = a.frozen_balance + d.frozen, updated_at = ${at}
         FROM jsonb_to_recordset(${lit(JSON.stringify(deltas))}::jsonb) AS d(id uuid, balance bigint, available bigint, frozen bigint) WHERE a.id = d.id${and})`,
      `i AS (
         UPDATE ledger.transaction_intents SET status = 'SUCCEEDED', transaction_id = ${uuidLit(transactionId)}, fee = ${lit(r.fee)}, updated_at = ${at}
         WHERE id = ${uuidLit(intent.id)}${and})`,
      `ev AS (
         INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
         SELECT ${uuidLit(intent.id)}, ${lit(intent.status)}, 'SUCCEEDED', 'transaction_completed', ${lit(actor.id)}, ${lit(actor.ip)}, ${lit(actor.userAgent)},
                ${lit(JSON.stringify({ transactionId, referenceId, correlationId, entries: legs.length }))}::jsonb, ${at}${where})`,
      `q AS (DELETE FROM ledger.intent_qr_locks WHERE intent_id = ${uuidLit(intent.id)}${and})`,
    ];
    const last = `INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload, created_at)
       SELECT ${uuidLit(outboxId)}, ${lit(LEDGER_EVENT_TYPES.transactionCompleted)}, ${uuidLit(transactionId)}, ${lit(JSON.stringify(event))}::jsonb, ${at}${where}`;
    const result: ExecutionResult = {
      transactionId,
      referenceId,
      amount: r.amount,
      fee: r.fee,
      commission: r.commission,
      currency: intent.currency,
      completedAt: completedAt.toISOString(),
    };
    return { ctes, last, result };
  }
}
