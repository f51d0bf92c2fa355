import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LEDGER_EVENT_TYPES, type TransactionCompletedEvent } from '@mm/contracts';
import { safeSum, toMoney } from '../db/money';
import type { ConfirmCall } from '../db/execute-confirm-call';
import type { ExecutionContextDto } from '../intents/dto/execution-context.dto';
import type { IdempotencyEntry } from '../idempotency/idempotency.service';
import { CONFIRMABLE_STATUSES } from '../intents/intent-state-machine';
import { type IntentRow, insufficientMessage } from '../intents/intent-view';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { TechnicalAccountsService } from '../wallets/technical-accounts.service';
import { checkCommissionBounds } from './commission-bounds';
import { type Posting, balanceDeltas, pairEntries } from './double-entry';
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
  /** the most the destination's balance may reach with this credit (minor units); null: no cap */
  payeeBalanceCap?: number | null;
}

export interface ExecutionResult {
  transactionId: string;
  referenceId: string;
  amount: number;
  fee: number;
  commission: number;
  currency: string;
  /** when the database function wrote the transaction (its clock, once every lock was held) */
  completedAt: string;
}

/**
 * What the execution context says about the transaction row; a null is filled in by the database
 * function from the intent (`initiated_by`, `type`, `agent_id`, `description`).
 */
export interface ExecutionMeta {
  createdBy: string | null;
  typeCode: string | null;
  agentId: string | null;
  description: string | null;
  extra?: Record<string, unknown>;
}

export interface ActorInfo {
  id: string;
  ip?: string;
  userAgent?: string;
}

/**
 * The atomic execution of a move to SUCCEEDED (docs/ledger.md "Transactions and entries"). Every
 * value the execution context decides is computed here; the locks, the checks on the locked rows
 * and the writes (transaction, entries, balances, intent, event, outbox row) are one call of the
 * database function `ledger.execute_confirm` (docs/ledger.md "Locks, isolation and retries").
 */
@Injectable()
export class TransferExecutor {
  constructor(
    private readonly config: LedgerWalletsConfig,
    private readonly technical: TechnicalAccountsService,
  ) {}

  /**
   * The accounts of an execution context, with the default technical accounts filled in. Done
   * before the locks (it decides which accounts to lock); `ledger.execute_confirm` then compares
   * the context with the intent it locked.
   */
  async resolve(ctx: ExecutionContextDto): Promise<ResolvedContext> {
    const fee = ctx.fee?.amount ?? 0;
    const commission = ctx.commission?.amount ?? 0;
    // The source pays amount + fee: refused (422) when that sum is not an exact integer.
    safeSum(ctx.amount, fee);
    // Both confirm paths (alone, or queued into a group's batch) resolve here first: a commission
    // out of bounds is refused before any lock is asked for or any batch joined.
    checkCommissionBounds(ctx.amount, commission, this.config.LEDGER_COMMISSION_MAX_PER_OPERATION);
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
      payeeBalanceCap: ctx.payeeBalanceCap ?? null,
    };
  }

  accountsOf(r: ResolvedContext): string[] {
    const ids = [r.source, r.destination];
    if (r.fee > 0) ids.push(r.feeAccount);
    if (r.commission > 0) ids.push(r.commissionFrom!, r.commissionTo!);
    return ids;
  }

  /**
   * Steps 1 to 8 as one call of `ledger.execute_confirm` (apps/ledger-wallets/sql/execute_confirm.sql), for
   * `LedgerDb.confirm` and the group commit. Everything the execution context decides is computed
   * here, before any lock: ids, reference, entries, balance deltas, the event and, with
   * `idempotent`, the stored response. The function locks the intent and the accounts, checks them
   * (status, expiry, the context against the intent, the accounts against the rules of
   * `ledger.account_rules_refusal`, the balance, the payee's cap) and writes only if every check
   * holds, filling in what only the intent row knows.
   */
  plan(request: ConfirmRequest, idempotent?: IdempotentWrite): ExecutionPlan {
    const { intentId, resolved: r, currency, meta, actor } = request;
    const required = safeSum(r.amount, r.fee);
    const accountIds = [...new Set(this.accountsOf(r))].sort();
    const postings: Posting[] = [
      { from: r.source, to: r.destination, amount: r.amount },
      { from: r.source, to: r.feeAccount, amount: r.fee },
    ];
    if (r.commission > 0) postings.push({ from: r.commissionFrom!, to: r.commissionTo!, amount: r.commission });
    const legs = pairEntries(postings);
    // The hold is released by the function, which reads its amount on the locked intent; it adds
    // it to the source's row of the deltas, always present since the amount (> 0) debits it.
    const deltas = balanceDeltas(legs);

    // The reference's date is this clock's; the transaction's time is the database's, read by the
    // function once it holds every lock (docs/ledger.md, "completed_at").
    const transactionId = randomUUID();
    const referenceId = newReferenceId(this.config.LEDGER_REFERENCE_PREFIX, new Date());
    const correlationId = currentContext()?.correlationId ?? null;
    const outboxId = randomUUID();
    // The function adds IntentFieldsOfEvent from the intent row.
    const event: Omit<TransactionCompletedEvent, IntentFieldsOfEvent> = {
      eventId: outboxId,
      type: LEDGER_EVENT_TYPES.transactionCompleted,
      transactionId,
      referenceId,
      intentId,
      amount: r.amount,
      fee: r.fee,
      commission: r.commission,
      currency,
      sourceAccountId: r.source,
      destinationAccountId: r.destination,
      correlationId,
    };
    // The one `ledger.confirm_call` value of `ledger.confirm_checked` (a confirm alone) or of one
    // element of a group's batch (`ledger.execute_confirm_batch`).
    const call: ConfirmCall = {
      intent_id: intentId,
      from_statuses: CONFIRMABLE_STATUSES,
      now: request.now,
      account_ids: accountIds,
      source_id: r.source,
      destination_id: r.destination,
      amount: r.amount,
      fee: r.fee,
      commission: r.commission,
      currency,
      fee_account_id: r.fee > 0 ? r.feeAccount : null,
      commission_from_id: r.commissionFrom,
      commission_to_id: r.commissionTo,
      payee_balance_cap: r.payeeBalanceCap ?? null,
      transaction_id: transactionId,
      reference_id: referenceId,
      created_by: meta.createdBy,
      type_code: meta.typeCode,
      agent_id: meta.agentId,
      description: meta.description,
      extra: meta.extra ? JSON.stringify(meta.extra) : null,
      correlation_id: correlationId,
      entries: JSON.stringify(legs),
      deltas: JSON.stringify(deltas),
      actor_id: actor.id,
      ip: actor.ip ?? null,
      user_agent: actor.userAgent ?? null,
      event_metadata: JSON.stringify({ transactionId, referenceId, correlationId, entries: legs.length }),
      outbox_id: outboxId,
      event_type: LEDGER_EVENT_TYPES.transactionCompleted,
      payload: JSON.stringify(event),
      idem_scope: null,
      idem_key: null,
      idem_hash: null,
      idem_status: null,
      idem_body: null,
      idem_ttl_hours: null,
    };
    const result: ExecutionResult = {
      transactionId,
      referenceId,
      amount: r.amount,
      fee: r.fee,
      commission: r.commission,
      currency,
      // Until the function answers: the placeholder it replaces in the stored response with its time.
      completedAt: COMPLETED_AT_PLACEHOLDER,
    };
    if (idempotent) {
      const { entry, status, body } = idempotent;
      Object.assign(call, {
        idem_scope: entry.scope,
        idem_key: entry.key,
        idem_hash: entry.hash,
        idem_status: status,
        idem_body: JSON.stringify(body(result)),
        idem_ttl_hours: entry.ttlHours,
      });
    }
    return {
      call,
      result,
      settle: (outcome) => {
        if (!outcome.ok) throw this.refusal(outcome, required);
        result.completedAt = outcome.completed_at!;
        return outcome.intent!;
      },
    };
  }

  /** The error of a refused confirm: the check that failed, with the message the service always gave. */
  private refusal(outcome: ExecutionOutcome, required: number): Error {
    const intent = outcome.intent;
    switch (outcome.refusal) {
      case 'INTENT_NOT_FOUND':
        return new AppException('INTENT_NOT_FOUND');
      case 'INVALID_INTENT_TRANSITION':
        return new AppException('INVALID_INTENT_TRANSITION', `Transition ${intent!.status} → SUCCEEDED is not allowed`);
      case 'INTENT_EXPIRED':
        return new AppException('INTENT_EXPIRED');
      case 'EXECUTION_CONTEXT_MISMATCH':
        return new AppException('EXECUTION_CONTEXT_MISMATCH', CONTEXT_MISMATCH_MESSAGE);
      case 'LIMIT_BALANCE_CAP_EXCEEDED':
        return new AppException('LIMIT_BALANCE_CAP_EXCEEDED');
      case 'INSUFFICIENT_BALANCE':
        return new AppException(
          'INSUFFICIENT_BALANCE',
          insufficientMessage(Number(outcome.available) + toMoney(intent!.frozen_amount), required),
        );
      default:
        return accountRefusal(outcome);
    }
  }
}

/**
 * An account check of `ledger.execute_confirm` refused (the rules are the database's alone:
 * `ledger.account_rules_refusal`): its code, with what the locked rows say about it.
 */
function accountRefusal(outcome: ExecutionOutcome): Error {
  const code = outcome.refusal!;
  const accounts = new Map((outcome.accounts ?? []).map((a) => [a.id, a]));
  const intent = outcome.intent;
  const typeOf = (id: string | null | undefined) => (id ? accounts.get(id)?.account_type : undefined) ?? 'unknown';
  switch (code) {
    case 'ACCOUNT_NOT_FOUND':
      return new AppException('ACCOUNT_NOT_FOUND', 'An account of the execution context does not exist');
    case 'ACCOUNT_NOT_ALLOWED':
      return new AppException('ACCOUNT_NOT_ALLOWED', WALLET_NOT_ACTIVE_MESSAGE);
    case 'CURRENCY_MISMATCH':
      return new AppException('CURRENCY_MISMATCH');
    case 'ACCOUNT_TYPE_NOT_ALLOWED':
      return new AppException(
        'ACCOUNT_TYPE_NOT_ALLOWED',
        `${intent?.type} cannot move money from a ${typeOf(intent?.source_account_id)} account to a ${typeOf(intent?.destination_account_id)} account`,
      );
    case 'FEE_ACCOUNT_NOT_ALLOWED':
    case 'COMMISSION_NOT_ALLOWED':
    case 'COMMISSION_SOURCE_NOT_ALLOWED':
      return new AppException(code);
    default:
      return new Error(`ledger.execute_confirm refused with ${code}, a refusal the service does not know`);
  }
}

/** The fields of the transaction.completed event that only the intent row knows: ledger.execute_confirm adds them. */
type IntentFieldsOfEvent = 'intentType' | 'qrToken' | 'createdBy' | 'typeCode' | 'agentId' | 'occurredAt';

/**
 * The stored response's stand-in for the transaction's time, which only the function knows: it
 * replaces the JSON string `"\u0000completedAt"` with its own. No text the body carries can hold it:
 * PostgreSQL text never contains NUL.
 */
export const COMPLETED_AT_PLACEHOLDER = '\u0000completedAt';

const CONTEXT_MISMATCH_MESSAGE = 'Accounts, amount and currency must be those of the intent';

/**
 * `ledger.execute_confirm`'s refusal of an account whose wallet is not ACTIVE. The code is the
 * nearest one libs/errors has (a dedicated WALLET_ code would be clearer); the message says which rule.
 */
const WALLET_NOT_ACTIVE_MESSAGE =
  'An account of the execution context is in a wallet that is not ACTIVE (closed or suspended): nothing moved';

/** What the confirm asks of the database: the intent, the resolved context and what it says of the transaction. */
export interface ConfirmRequest {
  intentId: string;
  resolved: ResolvedContext;
  /** the context's currency (the function checks it is the intent's) */
  currency: string;
  meta: ExecutionMeta;
  actor: ActorInfo;
  /** the clock the expiry is checked against */
  now: Date;
}

/** What `ledger.execute_confirm` answers: whether it wrote, or which check refused. */
export interface ExecutionOutcome {
  ok: boolean;
  /** the error code of the first check that failed; null when ok */
  refusal: string | null;
  /** the intent row as the function locked it (before its move); null when it does not exist */
  intent: IntentRow | null;
  /** the source's available balance it saw (after the writes when ok), as text (bigint) */
  available: string | null;
  /** on an account refusal: the accounts it locked (id, account_type, wallet_id, currency) */
  accounts: { id: string; account_type: string; wallet_id: string; currency: string }[] | null;
  /** from the round trip's arrival to every lock held */
  lock_ms: number;
  /** when ok: the transaction's time (ISO 8601, milliseconds), read by the function once it held every lock */
  completed_at: string | null;
}

export interface ExecutionPlan {
  /** the `ledger.confirm_call` value of the confirm (bound by `LedgerDb.confirm`, or one element of a batch) */
  call: ConfirmCall;
  /** its `completedAt` is the function's once `settle` accepted an `ok` outcome */
  result: ExecutionResult;
  /** the locked intent row of an `ok` outcome (and the result's time); otherwise throws the refusal's error */
  settle(outcome: ExecutionOutcome): IntentRow;
}

/** The idempotent response written by the same call: the key, and the body built from the execution's result. */
export interface IdempotentWrite {
  entry: IdempotencyEntry;
  status: number;
  body(result: ExecutionResult): unknown;
}
