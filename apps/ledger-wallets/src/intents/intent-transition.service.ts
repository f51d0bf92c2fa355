import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppException } from '@mm/errors';
import { MetricsService } from '@mm/platform';
import { ConsentProofVerifier, type VerifiedConsent } from '../consent/consent-proof.verifier';
import { checkProofTarget, checkProofUser, consentStepOf } from '../consent/consent-rules';
import type { DbSession } from '../db/db-session';
import { LedgerDb, ReferenceIdTaken } from '../db/ledger-db.service';
import type { GroupOutcome } from '../db/group-commit';
import { moneyLockKeys } from '../db/lock-keys';
import { isUniqueViolation } from '../db/sql-errors';
import { uuidArrayLit, uuidLit } from '../db/sql-literal';
import {
  type ActorInfo,
  type ExecutionMeta,
  type ExecutionOutcome,
  type ExecutionResult,
  type IdempotentWrite,
  TransferExecutor,
} from '../execution/transfer-executor.service';
import {
  type IdempotencyEntry,
  IdempotencyService,
  type IdempotentResponse,
  type RecordResponse,
} from '../idempotency/idempotency.service';
import { requestHash } from '../idempotency/canonical-hash';
import type { TransitionIntentDto } from './dto/transition-intent.dto';
import { type IntentStatus, RELEASING_STATUSES, transitionEvent } from './intent-state-machine';
import { type IntentRow, type IntentView, toIntentView } from './intent-view';
import type { StageTimer } from '../common/stage-timing';

/** Plans of one confirm before a taken reference is answered 409 (three draws in a row: never seen). */
const REFERENCE_ATTEMPTS = 3;

export interface TransitionOptions {
  /** the sweeper expires intents "as of" its own clock reading */
  now?: Date;
  /** the HTTP route's Server-Timing stages */
  timer?: StageTimer;
  /**
   * A confirm with an idempotency key: the intent row as read in the key's round trip (null: no
   * such intent), from which the stored response is built before the statement that stores it.
   */
  intentBefore?: IntentRow | null;
}

/**
 * `POST /v1/internal/intents/:id/transition`: the whole intent state machine
 * (docs/ledger.md "Intents"). Every move locks the intent first (advisory lock, then FOR UPDATE
 * inside the transaction), then the accounts it changes in ascending id order, and writes its
 * intent_events row in the same transaction.
 */
@Injectable()
export class IntentTransitionService {
  private readonly referenceRedraws: Counter;

  constructor(
    private readonly db: LedgerDb,
    private readonly idempotency: IdempotencyService,
    private readonly executor: TransferExecutor,
    private readonly consentProofs: ConsentProofVerifier,
    metrics: MetricsService,
  ) {
    this.referenceRedraws = metrics.counter(
      'ledger_reference_redraws_total',
      'Confirms planned again because the transaction reference drawn was already taken',
    );
  }

  /** The HTTP route: OTP_VERIFIED / PIN_VERIFIED only with a valid consent proof. */
  async transition(
    intentId: string,
    dto: TransitionIntentDto,
    idempotencyKey?: string,
    timer?: StageTimer,
  ): Promise<IdempotentResponse<IntentView>> {
    const options: TransitionOptions = { timer };
    return this.db.withSession(async (session) => {
      timer?.lap('conn');
      if (!idempotencyKey) return { status: 200, body: await this.move(session, intentId, dto, undefined, options), replayed: false };
      // A retry may carry a fresh proof for the same request: the proof is not part of what is compared.
      const hash = requestHash({ intentId, ...dto, consentProof: undefined });
      const confirming = dto.toStatus === 'SUCCEEDED' && !!dto.executionContext;
      return this.idempotency.run(
        session,
        'intent.transition',
        idempotencyKey,
        hash,
        async (record, read) => {
          if (confirming) options.intentBefore = (read[0]?.intent as IntentRow | undefined) ?? null;
          return { status: 200, body: await this.move(session, intentId, dto, record, options) };
        },
        timer,
        confirming ? `SELECT row_to_json(i) AS intent FROM ledger.transaction_intents i WHERE i.id = ${uuidLit(intentId)}` : undefined,
      );
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
    // The confirm is one statement of its own; its idempotent answer is written by that statement.
    if (to === 'SUCCEEDED') {
      if (!dto.executionContext) throw new AppException('EXECUTION_CONTEXT_REQUIRED');
      return this.executeInOneRoundTrip(session, intentId, dto, options, record?.entry);
    }
    const consent = await this.consentFor(session, intentId, dto);
    let accounts: string[] = [];
    if (RELEASING_STATUSES.includes(to)) {
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
           a AS (SELECT id FROM ledger.accounts WHERE id = ANY(${uuidArrayLit(ordered)}) ORDER BY id FOR UPDATE)
      SELECT (SELECT row_to_json(i) FROM i) AS intent, (SELECT count(*) FROM a) AS accounts_locked`;

    const view = await this.db.serializable(
      session,
      moneyLockKeys(ordered, intentId),
      async (s, rows) => {
        options.timer?.lap('lock');
        const locked = rows[0] as { intent: IntentRow | null };
        if (!locked.intent) throw new AppException('INTENT_NOT_FOUND');
        const intent = locked.intent;
        const from = intent.status;
        const event = transitionEvent(from, to, intent.requires_otp);
        if (!event) {
          // A request that raced another with the same proof finds the intent already moved: say so.
          if (consent && (await s.one(`SELECT 1 FROM ledger.consent_proofs WHERE jti = $1`, [consent.jti]))) {
            throw new AppException('CONSENT_PROOF_REPLAYED');
          }
          throw new AppException('INVALID_INTENT_TRANSITION', `Transition ${from} → ${to} is not allowed`);
        }
        // After the state check: a move the state machine refuses is a 400 whoever's proof it carries.
        if (consent) checkProofUser(consent, intent);
        const now = options.now ?? new Date();
        const due = new Date(intent.expires_at).getTime() <= now.getTime();
        if (to === 'EXPIRED' && !due) throw new AppException('INTENT_NOT_EXPIRED');
        if (!RELEASING_STATUSES.includes(to) && due) throw new AppException('INTENT_EXPIRED');

        const metadata = { reason: dto.reason ?? null, ...(dto.metadata ?? {}), ...consentAudit(consent) };
        const view = await this.simpleMove(s, intent, to, event, dto.actor, metadata, now, consent);
        if (record) await record(s, 200, view);
        return view;
      },
      lockedRead,
    );
    options.timer?.lap('sql');
    return view;
  }

  /**
   * SUCCEEDED in ONE round trip, one prepared statement: `CALL ledger.confirm_checked` (locks,
   * SERIALIZABLE transaction running `ledger.execute_confirm`, COMMIT, release; LedgerDb.confirm)
   * checks the intent, the context and the accounts on the rows it locks and writes only if they
   * hold; or, behind a busy account, the group commit's shared transaction runs the batch form of
   * the same function (`ledger.execute_confirm_batch`: the same checks and answers, call by call).
   * Nothing is read before: the function answers the intent row the response is built from. With
   * an idempotency key (`entry`) the same call stores the response, built from the intent row read
   * in the key's own round trip (`options.intentBefore`): the fields it shows never change once
   * the intent can be confirmed, and the call refuses an intent that moved in between. The key's
   * lock is released with the others.
   */
  private async executeInOneRoundTrip(
    session: DbSession,
    intentId: string,
    dto: TransitionIntentDto,
    options: TransitionOptions,
    entry?: IdempotencyEntry,
  ): Promise<IntentView> {
    const ctx = dto.executionContext!;
    const resolved = await this.executor.resolve(ctx);
    const ordered = [...new Set(this.executor.accountsOf(resolved))].sort();
    let before: IntentRow | undefined;
    let idempotent: IdempotentWrite | undefined;
    if (entry) {
      // Only `transition` passes a key's entry, and it reads the intent in the key's round trip.
      if (options.intentBefore === undefined) throw new Error('a keyed confirm needs the intent row read with its key');
      if (!options.intentBefore) throw new AppException('INTENT_NOT_FOUND');
      const row = (before = options.intentBefore);
      idempotent = { entry, status: 200, body: (result) => succeededView(row, result) };
    }
    const request = { intentId, resolved, currency: ctx.currency, meta: metaOf(dto), actor: dto.actor, now: options.now ?? new Date() };
    let plan = this.executor.plan(request, idempotent);
    options.timer?.lap('check');
    let grouped: GroupOutcome;
    for (let attempt = 1; ; attempt++) {
      try {
        // Alone, or with the others queued on the same hot account (one transaction, one flush).
        const current = plan;
        grouped = await this.db.runGrouped({
          session,
          intentId,
          accountIds: ordered,
          call: current.call,
          alsoRelease: entry ? [entry.lockKey] : [],
        });
        break;
      } catch (error) {
        // Nothing was written: planned again, the call draws a fresh reference (and fresh ids).
        if (!(error instanceof ReferenceIdTaken) || attempt >= REFERENCE_ATTEMPTS) throw error;
        this.referenceRedraws.inc();
        plan = this.executor.plan(request, idempotent);
      }
    }
    const [outcome] = grouped.rows as unknown as ExecutionOutcome[];
    options.timer?.lap('sql');
    // Waiting for the hot account's previous group, then the part of the round trip spent before
    // the statement held its locks (advisory and row locks).
    options.timer?.split('sql', 'queue', grouped.queuedMs);
    options.timer?.split('sql', 'lock', outcome.lock_ms);
    options.timer?.note('group', grouped.batchSize);
    const intent = plan.settle(outcome);
    // With a key, the view of the row the stored response was built from: the same bytes a replay returns.
    return succeededView(before ?? intent, plan.result);
  }

  /**
   * The verified proof a move to OTP_VERIFIED / PIN_VERIFIED needs, checked before
   * any lock: signature and lifetime (a local check against auth's cached key set), the intent and
   * step it was issued for, and whether it was redeemed already (a plain read outside the money
   * transaction, so no predicate lock ties unrelated moves together; the primary key of
   * consent_proofs still refuses a concurrent second redemption). The user it names is checked
   * against the locked intent row.
   */
  private async consentFor(session: DbSession, intentId: string, dto: TransitionIntentDto): Promise<VerifiedConsent | undefined> {
    const step = consentStepOf(dto.toStatus);
    if (!step) return undefined;
    if (!dto.consentProof) throw new AppException('CONSENT_PROOF_REQUIRED');
    const proof = await this.consentProofs.verify(dto.consentProof);
    checkProofTarget(proof, intentId, step);
    const redeemed = await session.one(`SELECT 1 FROM ledger.consent_proofs WHERE jti = $1`, [proof.jti]);
    if (redeemed) throw new AppException('CONSENT_PROOF_REPLAYED');
    return proof;
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
    consent?: VerifiedConsent,
  ): Promise<IntentView> {
    const releasing = RELEASING_STATUSES.includes(to);
    const [row] = await s
      .query<IntentRow>(
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
       q AS (DELETE FROM ledger.intent_qr_locks WHERE $4 AND intent_id = $1),
       c AS (
         INSERT INTO ledger.consent_proofs (jti, intent_id, step, user_id, expires_at, redeemed_at)
         SELECT $14::uuid, $1::uuid, $15::text, $16::text, $17::timestamptz, $3 WHERE $14::uuid IS NOT NULL)
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
          consent?.jti ?? null,
          consent?.step ?? null,
          consent?.userId ?? null,
          consent?.expiresAt ?? null,
        ],
      )
      .catch((error: unknown) => {
        // Two requests raced with one proof: the first redemption committed, this one is a replay.
        if (isUniqueViolation(error, 'consent_proofs_pkey')) throw new AppException('CONSENT_PROOF_REPLAYED');
        throw error;
      });
    return toIntentView(row);
  }
}

/** What the event row keeps of the consent behind an OTP_VERIFIED / PIN_VERIFIED move (never the proof itself). */
function consentAudit(consent: VerifiedConsent | undefined): Record<string, unknown> {
  return consent ? { consent: { step: consent.step, userId: consent.userId, jti: consent.jti } } : {};
}

/** What the context says of the transaction row; the database function fills in the intent's own values for what it leaves out. */
function metaOf(dto: TransitionIntentDto): ExecutionMeta {
  const ctx = dto.executionContext!;
  return {
    createdBy: ctx.createdBy ?? null,
    typeCode: ctx.metadata?.typeCode ?? null,
    agentId: ctx.metadata?.agentId ?? null,
    description: ctx.metadata?.description ?? null,
    extra: ctx.metadata?.extra,
  };
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
