import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { DbSession } from '../db/db-session';
import { LedgerDb } from '../db/ledger-db.service';
import { moneyLockKeys } from '../db/lock-keys';
import { uuidArrayLit, uuidLit } from '../db/sql-literal';
import {
  type ActorInfo,
  type ExecutionMeta,
  type ExecutionResult,
  type LockedAccount,
  type ResolvedContext,
  TransferExecutor,
} from '../execution/transfer-executor.service';
import { IdempotencyService, type IdempotentResponse, type RecordResponse } from '../idempotency/idempotency.service';
import { requestHash } from '../idempotency/canonical-hash';
import type { TransitionIntentDto } from './dto/transition-intent.dto';
import { type IntentStatus, RELEASING_STATUSES, transitionEvent } from './intent-state-machine';
import { type IntentRow, type IntentView, insufficientMessage, toIntentView } from './intent-view';

export interface TransitionOptions {
  /** the sweeper expires intents "as of" its own clock reading */
  now?: Date;
}

/**
 * `POST /v1/internal/intents/:id/transition`: the whole state machine of spec 2. Every move locks
 * the intent first (advisory lock, then FOR UPDATE inside the transaction), then the accounts it
 * changes in ascending id order, and writes its intent_events row in the same transaction.
 */
@Injectable()
export class IntentTransitionService {
  constructor(
    private readonly db: LedgerDb,
    private readonly idempotency: IdempotencyService,
    private readonly executor: TransferExecutor,
  ) {}

  async transition(intentId: string, dto: TransitionIntentDto, idempotencyKey?: string): Promise<IdempotentResponse<IntentView>> {
    return this.db.withSession(async (session) => {
      if (!idempotencyKey) return { status: 200, body: await this.move(session, intentId, dto), replayed: false };
      const hash = requestHash({ intentId, ...dto });
      return this.idempotency.run(session, 'intent.transition', idempotencyKey, hash, async (record) => ({
        status: 200,
        body: await this.move(session, intentId, dto, record),
      }));
    });
  }

  /** The sweeper's entry: same locks, same event row, actor `system:expiry-sweeper`. */
  expire(intentId: string, now: Date): Promise<IntentView> {
    return this.db.withSession((session) =>
      this.move(
        session,
        intentId,
        { toStatus: 'EXPIRED', actor: { id: 'system:expiry-sweeper' }, reason: 'lifetime exceeded' },
        undefined,
        { now },
      ),
    );
  }

  async move(
    session: DbSession,
    intentId: string,
    dto: TransitionIntentDto,
    record?: RecordResponse,
    options: TransitionOptions = {},
  ): Promise<IntentView> {
    const to = dto.toStatus;
    if (to === 'SUCCEEDED' && dto.executionContext && !record) return this.executeInOneRoundTrip(session, intentId, dto, options);
    let resolved: ResolvedContext | undefined;
    let accounts: string[] = [];
    if (to === 'SUCCEEDED') {
      if (!dto.executionContext) throw new AppException('EXECUTION_CONTEXT_REQUIRED');
      // The context names the accounts to lock; it is checked against the intent under the lock.
      resolved = await this.executor.resolve(dto.executionContext);
      accounts = this.executor.accountsOf(resolved);
    } else if (RELEASING_STATUSES.includes(to)) {
      // The source of an intent never changes: reading it before the lock is safe.
      const current = await session.one<{ source_account_id: string }>(
        `SELECT source_account_id FROM ledger.transaction_intents WHERE id = $1`,
        [intentId],
      );
      if (!current) throw new AppException('INTENT_NOT_FOUND');
      accounts = [current.source_account_id];
    }
    const ordered = [...new Set(accounts)].sort();

    // Steps 1 and 2 in the locks' round trip: the intent row, then the accounts in ascending id order.
    const lockedRead = `WITH i AS (SELECT * FROM ledger.transaction_intents WHERE id = ${uuidLit(intentId)} FOR UPDATE),
           a AS (SELECT id, account_type, currency, available_balance::text FROM ledger.accounts WHERE id = ANY(${uuidArrayLit(ordered)}) ORDER BY id FOR UPDATE)
      SELECT (SELECT row_to_json(i) FROM i) AS intent, (SELECT json_agg(a ORDER BY a.id) FROM a) AS accounts`;

    return this.db.serializable(
      session,
      moneyLockKeys(ordered, intentId),
      async (s, rows) => {
        const locked = rows[0] as { intent: IntentRow | null; accounts: LockedAccount[] | null };
        if (!locked.intent) throw new AppException('INTENT_NOT_FOUND');
        const intent = locked.intent;
        const from = intent.status;
        const event = transitionEvent(from, to, intent.requires_otp);
        if (!event) throw new AppException('INVALID_INTENT_TRANSITION', `Transition ${from} → ${to} is not allowed`);
        const now = options.now ?? new Date();
        const due = new Date(intent.expires_at).getTime() <= now.getTime();
        if (to === 'EXPIRED' && !due) throw new AppException('INTENT_NOT_EXPIRED');
        if (!RELEASING_STATUSES.includes(to) && due) throw new AppException('INTENT_EXPIRED');

        let view: IntentView;
        if (to === 'SUCCEEDED') {
          const ctx = dto.executionContext!;
          this.executor.checkAgainst(intent, ctx);
          const result = this.executor.execute(s, intent, resolved!, locked.accounts ?? [], this.metaOf(intent, dto), dto.actor);
          view = succeededView(intent, result);
        } else {
          view = await this.simpleMove(s, intent, to, event, dto.actor, { reason: dto.reason ?? null, ...(dto.metadata ?? {}) }, now);
        }
        if (record) await record(s, 200, view);
        return view;
      },
      lockedRead,
    );
  }

  /**
   * SUCCEEDED without an idempotency record to store: every check that does not depend on the
   * locked rows runs first on a plain read (an intent's accounts, amount, currency, expiry and
   * hold never change), then the whole transaction runs as one guarded statement in one round
   * trip, re-checking the intent's status and the balance on the rows it locks. With an
   * idempotency key the response must be stored in the same transaction: that goes through `move`'s
   * two-round-trip path.
   */
  private async executeInOneRoundTrip(
    session: DbSession,
    intentId: string,
    dto: TransitionIntentDto,
    options: TransitionOptions,
  ): Promise<IntentView> {
    const ctx = dto.executionContext!;
    const resolved = await this.executor.resolve(ctx);
    const ordered = [...new Set(this.executor.accountsOf(resolved))].sort();
    const [pre] = await session.query<{ intent: IntentRow | null; accounts: LockedAccount[] | null }>(
      `SELECT (SELECT row_to_json(i) FROM ledger.transaction_intents i WHERE i.id = $1) AS intent,
              (SELECT json_agg(a ORDER BY a.id) FROM (SELECT id, account_type, currency, available_balance::text FROM ledger.accounts WHERE id = ANY($2::uuid[])) a) AS accounts`,
      [intentId, ordered],
    );
    if (!pre.intent) throw new AppException('INTENT_NOT_FOUND');
    const intent = pre.intent;
    const invalid = () => new AppException('INVALID_INTENT_TRANSITION', `Transition ${intent.status} → SUCCEEDED is not allowed`);
    if (!transitionEvent(intent.status, 'SUCCEEDED', intent.requires_otp)) throw invalid();
    if (new Date(intent.expires_at).getTime() <= (options.now ?? new Date()).getTime()) throw new AppException('INTENT_EXPIRED');
    this.executor.checkAgainst(intent, ctx);
    this.executor.validateAccounts(intent, resolved, pre.accounts ?? []);

    const plan = this.executor.guarded(intent, resolved, this.metaOf(intent, dto), dto.actor);
    const [outcome] = (await this.db.singleStatement(session, moneyLockKeys(ordered, intentId), plan.sql)) as {
      ok: boolean;
      status: IntentStatus;
      available: string;
    }[];
    if (!outcome.ok) {
      if (outcome.status !== 'PIN_VERIFIED') {
        throw new AppException('INVALID_INTENT_TRANSITION', `Transition ${outcome.status} → SUCCEEDED is not allowed`);
      }
      throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(Number(outcome.available) + plan.frozen, plan.required));
    }
    return succeededView(intent, plan.result);
  }

  private metaOf(intent: IntentRow, dto: TransitionIntentDto): ExecutionMeta {
    const ctx = dto.executionContext!;
    return {
      createdBy: ctx.createdBy ?? intent.initiated_by,
      typeCode: ctx.metadata?.typeCode ?? intent.type,
      agentId: ctx.metadata?.agentId ?? intent.agent_id,
      description: ctx.metadata?.description ?? intent.description,
      extra: ctx.metadata?.extra,
    };
  }

  /** Every move but SUCCEEDED; FAILED / EXPIRED / CANCELED also give the hold back. */
  private async simpleMove(
    s: DbSession,
    intent: IntentRow,
    to: IntentStatus,
    event: string,
    actor: ActorInfo,
    metadata: Record<string, unknown>,
    now: Date,
  ): Promise<IntentView> {
    const releasing = RELEASING_STATUSES.includes(to);
    const [row] = await s.query<IntentRow>(
      `WITH i AS (
         UPDATE ledger.transaction_intents SET status = $2, updated_at = $3,
           failure_reason = CASE WHEN $4 THEN $5 ELSE failure_reason END
         WHERE id = $1 RETURNING *),
       a AS (
         UPDATE ledger.accounts SET available_balance = available_balance + $6, frozen_balance = frozen_balance - $6, updated_at = $3
         WHERE $4 AND id = $7),
       e AS (
         INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata, created_at)
         VALUES ($1, $8, $2, $9, $10, $11, $12, $13::jsonb, $3)),
       q AS (DELETE FROM ledger.intent_qr_locks WHERE $4 AND intent_id = $1)
       SELECT * FROM i`,
      [
        intent.id,
        to,
        now,
        releasing,
        (metadata.reason as string | null) ?? to.toLowerCase(),
        releasing ? intent.frozen_amount : 0,
        intent.source_account_id,
        intent.status,
        event,
        actor.id,
        actor.ip ?? null,
        actor.userAgent ?? null,
        JSON.stringify(releasing ? { ...metadata, releasedAmount: Number(intent.frozen_amount) } : metadata),
      ],
    );
    return toIntentView(row);
  }
}

function succeededView(intent: IntentRow, result: ExecutionResult): IntentView {
  return {
    ...toIntentView(intent),
    status: 'SUCCEEDED',
    fee: result.fee,
    transactionId: result.transactionId,
    referenceId: result.referenceId,
    updatedAt: result.completedAt,
  };
}
