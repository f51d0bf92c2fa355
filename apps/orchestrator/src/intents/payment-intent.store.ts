import { Injectable } from '@nestjs/common';
import type { TransitionRequest } from '@mm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import { type SqlRead, type SqlWrite, queryRows } from '@mm/platform';
import { toSafeInteger } from '../common/operation-type';
import type { ConfirmedIntentView, CreatedIntentView } from './dto/intent-views.dto';
import type { NewPaymentIntent, PaymentIntentRecord } from './payment-intent.types';

type Db = DataSource | EntityManager;

export interface PaymentIntentRow {
  id: string;
  ledger_intent_id: string | null;
  idempotency_key: string;
  request_hash: string;
  initiator_user_id: string;
  initiator_role: string;
  type: PaymentIntentRecord['type'];
  operation_type: PaymentIntentRecord['operationType'];
  amount: string;
  currency: PaymentIntentRecord['currency'];
  quote_id: string;
  quoted_fee: string;
  quoted_commission: string;
  grid_version: number;
  limits_version: number;
  risk_create_decision_id: string;
  risk_confirm_decision_id: string | null;
  payer: PaymentIntentRecord['payer'];
  payee: PaymentIntentRecord['payee'];
  agent: PaymentIntentRecord['agent'];
  source_account_id: string;
  destination_account_id: string;
  requires_otp: boolean;
  qr_token: string | null;
  withdrawal_qr_id: string | null;
  description: string | null;
  stage: PaymentIntentRecord['stage'];
  pin_attempts: number;
  otp_attempts: number;
  ledger_request: PaymentIntentRecord['ledgerRequest'];
  create_response: CreatedIntentView | null;
  confirm_request: TransitionRequest | null;
  charged_fee: string | null;
  charged_commission: string | null;
  charge_rule: string | null;
  transaction_id: string | null;
  reference_id: string | null;
  confirm_response: ConfirmedIntentView | null;
  failure_reason: string | null;
  correlation_id: string | null;
  expires_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns a record is read from (those of PaymentIntentRow), listed rather than `*`: the
 * payment path's reads and RETURNINGs are prepared statements (QueryOptions.prepared), and a
 * prepared `*` changes its result type when a migration adds a column, which fails that statement
 * on every instance still running until its connections are recycled.
 */
export const RECORD_COLUMNS = `id, ledger_intent_id, idempotency_key, request_hash, initiator_user_id, initiator_role, type,
  operation_type, amount, currency, quote_id, quoted_fee, quoted_commission, grid_version,
  limits_version, risk_create_decision_id, risk_confirm_decision_id, payer, payee, agent,
  source_account_id, destination_account_id, requires_otp, qr_token, withdrawal_qr_id, description,
  stage, pin_attempts, otp_attempts, ledger_request, create_response, confirm_request, charged_fee,
  charged_commission, charge_rule, transaction_id, reference_id, confirm_response, failure_reason,
  correlation_id, expires_at, completed_at, created_at, updated_at`;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const money = (v: string | null) => (v === null ? null : toSafeInteger(v));

/** The record `forInitiatorRead` found, or the 404 an unknown id or another user's intent gets. */
export function initiatorsRecord([row]: PaymentIntentRow[]): PaymentIntentRecord {
  if (!row) throw new AppException('INTENT_NOT_FOUND');
  return toRecord(row);
}

export function toRecord(row: PaymentIntentRow): PaymentIntentRecord {
  return {
    id: row.id,
    ledgerIntentId: row.ledger_intent_id,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    initiatorUserId: row.initiator_user_id,
    initiatorRole: row.initiator_role,
    type: row.type,
    operationType: row.operation_type,
    amount: toSafeInteger(row.amount),
    currency: row.currency,
    quoteId: row.quote_id,
    quotedFee: toSafeInteger(row.quoted_fee),
    quotedCommission: toSafeInteger(row.quoted_commission),
    gridVersion: row.grid_version,
    limitsVersion: row.limits_version,
    riskCreateDecisionId: row.risk_create_decision_id,
    riskConfirmDecisionId: row.risk_confirm_decision_id,
    payer: row.payer,
    payee: row.payee,
    agent: row.agent,
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    requiresOtp: row.requires_otp,
    qrToken: row.qr_token,
    withdrawalQrId: row.withdrawal_qr_id,
    description: row.description,
    stage: row.stage,
    pinAttempts: row.pin_attempts,
    otpAttempts: row.otp_attempts,
    ledgerRequest: row.ledger_request,
    createResponse: row.create_response,
    confirmRequest: row.confirm_request,
    chargedFee: money(row.charged_fee),
    chargedCommission: money(row.charged_commission),
    chargeRule: row.charge_rule,
    transactionId: row.transaction_id,
    referenceId: row.reference_id,
    confirmResponse: row.confirm_response,
    failureReason: row.failure_reason,
    correlationId: row.correlation_id,
    expiresAt: iso(row.expires_at),
    completedAt: iso(row.completed_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

/** What the success of an intent writes on its record (with the SMS, in one transaction). */
export interface Outcome {
  transactionId: string;
  referenceId: string;
  chargedFee: number;
  chargedCommission: number;
  chargeRule: string;
  riskConfirmDecisionId: string;
  completedAt: string;
  response: ConfirmedIntentView;
}

/** Closes PENDING record $1 without a ledger intent (CLOSED, reason $2); callers may add conditions on `p`. */
const CLOSE_UNCREATED = `UPDATE orchestrator.payment_intents p SET stage = 'CLOSED', failure_reason = $2, updated_at = now()
          WHERE p.id = $1 AND p.stage = 'PENDING'`;

/**
 * The one text of a new record's insert (`INSERT … SELECT`, to be followed by a WHERE), with its
 * parameters: $1 is the record's id and $27 its withdrawal QR (the QR consumption of `insertPending`
 * names both).
 */
function recordInsert(intent: NewPaymentIntent): { insert: string; params: unknown[] } {
  return {
    insert: `INSERT INTO orchestrator.payment_intents (id, idempotency_key, request_hash, initiator_user_id, initiator_role, type, operation_type,
           amount, currency, quote_id, quoted_fee, quoted_commission, grid_version, limits_version, risk_create_decision_id,
           payer, payee, agent, payer_user_id, payee_user_id, agent_user_id, master_agent_user_id, source_account_id, destination_account_id,
           requires_otp, qr_token, withdrawal_qr_id, description, stage, ledger_request, correlation_id)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17::jsonb, $18::jsonb, $19, $20, $21, $22,
           $23, $24, $25, $26, $27, $28, 'PENDING',
           $29::jsonb, $30`,
    params: [
      intent.id,
      intent.idempotencyKey,
      intent.requestHash,
      intent.initiatorUserId,
      intent.initiatorRole,
      intent.type,
      intent.operationType,
      intent.amount,
      intent.currency,
      intent.quoteId,
      intent.quotedFee,
      intent.quotedCommission,
      intent.gridVersion,
      intent.limitsVersion,
      intent.riskCreateDecisionId,
      JSON.stringify(intent.payer),
      JSON.stringify(intent.payee),
      intent.agent ? JSON.stringify(intent.agent) : null,
      intent.payer.userId,
      intent.payee.userId,
      intent.agent?.userId ?? null,
      intent.agent?.masterAgentUserId ?? null,
      intent.sourceAccountId,
      intent.destinationAccountId,
      intent.requiresOtp,
      intent.qrToken,
      intent.withdrawalQrId,
      intent.description,
      JSON.stringify(intent.ledgerRequest),
      intent.correlationId,
    ],
  };
}

/** A concurrent request with the same key won the insert in a way that aborted this transaction. */
export class TwinWonError extends Error {
  constructor() {
    super('a concurrent request with the same idempotency key won');
  }
}

/** SQL of orchestrator.payment_intents and the withdrawal QR consumption that goes with a creation. */
@Injectable()
export class PaymentIntentStore {
  constructor(private readonly db: DataSource) {}

  async findByKey(idempotencyKey: string, db: Db = this.db): Promise<PaymentIntentRecord | undefined> {
    const { text, params } = this.byKeyRead(idempotencyKey);
    const [row] = await queryRows<PaymentIntentRow>(db, text, params);
    return row && toRecord(row);
  }

  /** `findByKey`'s read, to run with values of other modules riding along (readAlong); rows go through `toRecord`. */
  byKeyRead(idempotencyKey: string): SqlRead {
    return { text: `SELECT ${RECORD_COLUMNS} FROM orchestrator.payment_intents WHERE idempotency_key = $1`, params: [idempotencyKey] };
  }

  /** The intent as its initiator may see it; anyone else gets the same 404 as for an unknown id. */
  async getForInitiator(ledgerIntentId: string, userId: string): Promise<PaymentIntentRecord> {
    const { text, params } = this.forInitiatorRead(ledgerIntentId, userId);
    // Prepared (QueryOptions.prepared): every verify-pin reads it.
    return initiatorsRecord(await queryRows<PaymentIntentRow>(this.db, text, params, { prepared: true }));
  }

  /** `getForInitiator`'s read, to run with values of other modules riding along; its rows go through `initiatorsRecord`. */
  forInitiatorRead(ledgerIntentId: string, userId: string): SqlRead {
    return {
      text: `SELECT ${RECORD_COLUMNS} FROM orchestrator.payment_intents WHERE ledger_intent_id = $1 AND initiator_user_id = $2`,
      params: [ledgerIntentId, userId],
    };
  }

  /**
   * Writes the record before the ledger is called (its ledger request is then fixed) and consumes
   * the withdrawal QR, in one statement: with a QR that is no longer usable nothing is written
   * (WITHDRAWAL_QR_INVALID). The ledger request is stored as the caller built it (a withdrawal-code
   * cash-out's carries the code's expiry as `createBy`, see IntentPlan). Answers undefined when a
   * record with this key already exists (a concurrent twin won; nothing was written by this
   * statement). `db`: the caller's transaction (the quote and the risk decision are written in the
   * same one). When the statement itself failed because a twin won (its QR consumption raced
   * ours), TwinWonError is thrown: the transaction is aborted and must end, and the caller answers
   * as the twin's replay outside it.
   */
  async insertPending(intent: NewPaymentIntent, db: Db = this.db): Promise<PaymentIntentRecord | undefined> {
    let row: PaymentIntentRow & { qr_ok: boolean };
    try {
      [row] = await this.insertStatement(intent, db);
    } catch (error) {
      // The QR was consumed for this id while a twin with the same key (another body) won the insert.
      if ((error as { code?: string }).code === '23503') throw new TwinWonError();
      throw error;
    }
    if (!row.qr_ok) {
      // A twin with the same key consumed it first: the caller answers as its replay.
      if (await this.findByKey(intent.idempotencyKey, db)) return undefined;
      throw new AppException('WITHDRAWAL_QR_INVALID');
    }
    return row.id ? toRecord(row) : undefined;
  }

  /**
   * The record's insert without a withdrawal QR, as a write to run with others in one statement
   * (see runWritesTogether): PostgreSQL allows no data-modifying WITH inside a CTE, so the QR
   * consumption of `insertPending` cannot come along, and a plan with a withdrawal QR goes through
   * `insertPending`. Answers the record's row only when this write stored it (none when a record with
   * this key exists). `onlyIf`: a condition without parameters, on earlier writes of that statement
   * (the record is then stored only when it holds).
   */
  pendingWrite(intent: NewPaymentIntent, onlyIf: string): SqlWrite {
    if (intent.withdrawalQrId !== null) throw new Error('pendingWrite: a withdrawal QR is consumed by insertPending only');
    const record = recordInsert(intent);
    return {
      text: `${record.insert}
          WHERE ${onlyIf}
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING ${RECORD_COLUMNS}`,
      params: record.params,
    };
  }

  private insertStatement(intent: NewPaymentIntent, db: Db): Promise<Array<PaymentIntentRow & { qr_ok: boolean }>> {
    const record = recordInsert(intent);
    return queryRows<PaymentIntentRow & { qr_ok: boolean }>(
      db,
      `WITH qr AS (
         UPDATE orchestrator.withdrawal_qrs SET consumed_at = now(), consumed_by = $1
          WHERE $27::uuid IS NOT NULL AND id = $27 AND consumed_at IS NULL AND expires_at > now() RETURNING id, expires_at),
       ins AS (
         ${record.insert}
          WHERE $27::uuid IS NULL OR EXISTS (SELECT 1 FROM qr)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING *)
       SELECT ins.*, ($27::uuid IS NULL OR EXISTS (SELECT 1 FROM qr)) AS qr_ok FROM (SELECT 1) one LEFT JOIN ins ON true`,
      record.params,
    );
  }

  /**
   * For a PENDING withdrawal-code cash-out stored before ledger requests carried `createBy` only:
   * is its code still within its lifetime? When it is not, the record is closed (FAILED, no ledger
   * intent) in the same statement, so no later replay can send its no-OTP request either (the
   * ledger cannot be asked without risking a new creation). Answers FRESH (send it), ANSWERED with
   * the stored answer (a twin recorded the ledger's answer meanwhile) or CLOSED.
   */
  async qrStillFresh(id: string): Promise<{ state: 'FRESH' | 'CLOSED' } | { state: 'ANSWERED'; response: CreatedIntentView }> {
    const [row] = await queryRows<{ stage: PaymentIntentRecord['stage']; create_response: CreatedIntentView | null }>(
      this.db,
      `WITH closed AS (
         ${CLOSE_UNCREATED}
            AND NOT EXISTS (SELECT 1 FROM orchestrator.withdrawal_qrs q WHERE q.id = p.withdrawal_qr_id AND q.expires_at > now())
          RETURNING p.stage)
       SELECT COALESCE((SELECT stage FROM closed), p.stage) AS stage, p.create_response
         FROM orchestrator.payment_intents p WHERE p.id = $1`,
      [id, 'withdrawal code expired before the ledger accepted the operation'],
    );
    if (row.create_response) return { state: 'ANSWERED', response: row.create_response };
    return { state: row.stage === 'PENDING' ? 'FRESH' : 'CLOSED' };
  }

  /**
   * Closes a PENDING record the ledger refused for good without creating anything (its deadline for
   * creating passed): CLOSED, no ledger intent. A record no longer PENDING is left as it is.
   */
  async closeUncreated(id: string, failureReason: string): Promise<void> {
    await queryRows(this.db, CLOSE_UNCREATED, [id, failureReason]);
  }

  /**
   * The ledger created the intent: its id and the answer every replay of this key gets. Answers the
   * record as it stands after: when it was no longer PENDING (a twin recorded the same intent, or
   * the record was closed meanwhile) nothing changes, and the caller compares `ledgerIntentId`.
   */
  async markCreated(id: string, ledgerIntentId: string, expiresAt: string, response: CreatedIntentView): Promise<PaymentIntentRecord> {
    const [row] = await queryRows<PaymentIntentRow>(
      this.db,
      `UPDATE orchestrator.payment_intents SET ledger_intent_id = $2, stage = 'CREATED', expires_at = $3, create_response = $4::jsonb, updated_at = now()
        WHERE id = $1 AND stage = 'PENDING' RETURNING ${RECORD_COLUMNS}`,
      [id, ledgerIntentId, expiresAt, JSON.stringify(response)],
      // every create records the ledger's answer: parsed and planned once per connection
      { prepared: true },
    );
    return row ? toRecord(row) : this.reload(id);
  }

  /**
   * A confirmed intent the ledger ended without success (expired, failed, canceled): nothing more
   * to do here once its limit hold went back. A record already settled or closed is left alone.
   */
  async close(id: string, failureReason: string | null): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE orchestrator.payment_intents SET stage = 'CLOSED', failure_reason = COALESCE($2, failure_reason), updated_at = now()
        WHERE id = $1 AND stage = 'CREATED'`,
      [id, failureReason],
    );
  }

  /** Counts one wrong PIN or OTP; answers the count after it. */
  async countAttempt(id: string, kind: 'pin' | 'otp'): Promise<number> {
    const column = kind === 'pin' ? 'pin_attempts' : 'otp_attempts';
    const [row] = await queryRows<{ n: number }>(
      this.db,
      `UPDATE orchestrator.payment_intents SET ${column} = ${column} + 1, updated_at = now() WHERE id = $1 RETURNING ${column} AS n`,
      [id],
    );
    return row.n;
  }

  /** The first confirm fixes the ledger request; every retry sends exactly that one. `db`: the caller's transaction, if any. */
  async fixConfirmRequest(id: string, request: TransitionRequest, db: Db = this.db): Promise<TransitionRequest> {
    const [row] = await queryRows<{ confirm_request: TransitionRequest }>(
      db,
      `UPDATE orchestrator.payment_intents SET confirm_request = COALESCE(confirm_request, $2::jsonb), updated_at = now()
        WHERE id = $1 RETURNING confirm_request`,
      [id, JSON.stringify(request)],
    );
    return row.confirm_request;
  }

  /**
   * `fixConfirmRequest` as a write to run with others in one statement (see runWritesTogether), for
   * the first confirm: it fixes the request only when none is fixed yet and answers it only then.
   * `onlyIf`: a condition without parameters on earlier writes of that statement.
   */
  confirmRequestWrite(id: string, request: TransitionRequest, onlyIf: string): SqlWrite {
    return {
      text: `UPDATE orchestrator.payment_intents SET confirm_request = $2::jsonb, updated_at = now()
        WHERE id = $1 AND confirm_request IS NULL AND ${onlyIf} RETURNING confirm_request`,
      params: [id, JSON.stringify(request)],
    };
  }

  /**
   * The record's success, as a write to run with the SMS, usage and counterparty writes in one
   * statement; it returns the record's id when this write settled it (not an earlier twin).
   */
  succeededWrite(id: string, outcome: Outcome): SqlWrite {
    return {
      text: `UPDATE orchestrator.payment_intents SET stage = 'SETTLED', transaction_id = $2, reference_id = $3, charged_fee = $4,
          charged_commission = $5, charge_rule = $6, risk_confirm_decision_id = $7, completed_at = $8, confirm_response = $9::jsonb,
          updated_at = now()
        WHERE id = $1 AND stage = 'CREATED' RETURNING id`,
      params: [
        id,
        outcome.transactionId,
        outcome.referenceId,
        outcome.chargedFee,
        outcome.chargedCommission,
        outcome.chargeRule,
        outcome.riskConfirmDecisionId,
        outcome.completedAt,
        JSON.stringify(outcome.response),
      ],
    };
  }

  /**
   * Intents whose confirm request was fixed more than `quietMs` ago and that are neither settled nor
   * closed here: a confirm that died after (or while) asking the ledger, or one the ledger refused.
   */
  async unfinishedConfirms(quietMs: number, limit: number): Promise<PaymentIntentRecord[]> {
    const rows = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents
        WHERE confirm_request IS NOT NULL AND stage = 'CREATED'
          AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY updated_at LIMIT $2`,
      [quietMs, limit],
    );
    return rows.map(toRecord);
  }

  /** Sends an unfinished confirm the sweep could not finish yet to the back of its work list. */
  async touch(id: string): Promise<void> {
    await queryRows(this.db, `UPDATE orchestrator.payment_intents SET updated_at = now() WHERE id = $1 AND stage = 'CREATED'`, [id]);
  }

  async reload(id: string, db: Db = this.db): Promise<PaymentIntentRecord> {
    const [row] = await queryRows<PaymentIntentRow>(db, `SELECT * FROM orchestrator.payment_intents WHERE id = $1`, [id]);
    return toRecord(row);
  }
}
