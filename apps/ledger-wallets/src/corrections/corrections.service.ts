import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { isUniqueViolation } from '../db/sql-errors';
import { requestHash } from '../idempotency/canonical-hash';
import { type CorrectionEventView, CORRECTION_COLUMNS, type CorrectionRow, type CorrectionView, toCorrectionView } from './correction-view';
import { CorrectionsSettings } from './corrections.settings';
import type { RejectCorrectionDto } from './dto/decide-correction.dto';
import type { ListCorrectionsQuery } from './dto/list-corrections.dto';
import type { SubmitCorrectionDto } from './dto/submit-correction.dto';
import { type OperatorIdentity, OperatorTokens } from './operator-tokens.service';
import { inverseOf } from './reversal-approval';
import { largestAccountMovement, readReversalTarget } from './reversal-target';

/**
 * The maker's side of a correction and every read: submit (a request, nothing moves), reject
 * (a checker's refusal), get with its journal, list. Approval, the only step that moves money,
 * is CorrectionApproval's.
 */
@Injectable()
export class CorrectionsService {
  constructor(
    private readonly db: LedgerDb,
    private readonly settings: CorrectionsSettings,
  ) {}

  /** 201 with the new request; the same key and body again answer the stored one (`replayed`). */
  async submit(dto: SubmitCorrectionDto, maker: OperatorIdentity): Promise<{ view: CorrectionView; replayed: boolean }> {
    OperatorTokens.require(maker, this.settings.makerRoles, 'submit a correction');
    return dto.kind === 'REVERSAL' ? this.submitReversal(dto, maker) : this.submitAccount(dto, maker);
  }

  /** One account against suspense (the DTO guarantees accountId, direction and amount for this kind). */
  private async submitAccount(dto: SubmitCorrectionDto, maker: OperatorIdentity): Promise<{ view: CorrectionView; replayed: boolean }> {
    const accountId = dto.accountId!.toLowerCase();
    const amount = dto.amount!;
    const [account] = await this.db.query<{ currency: string; account_type: string }>(
      `SELECT currency, account_type FROM ledger.accounts WHERE id = $1`,
      [accountId],
    );
    if (!account) throw new AppException('ACCOUNT_NOT_FOUND');
    if (account.account_type === 'suspense') throw new AppException('ACCOUNT_NOT_ALLOWED', 'The suspense account cannot correct itself');
    const hash = requestHash({ accountId, direction: dto.direction, amount, reason: dto.reason });
    const correlationId = currentContext()?.correlationId ?? null;
    const [created] = await this.db.query<CorrectionRow>(
      `WITH c AS (
         INSERT INTO ledger.corrections (idempotency_key, request_hash, account_id, direction, amount, currency, reason, status,
                                         requires_compliance, maker_id, maker_roles, correlation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'PENDING_APPROVAL', $8, $9, $10, $11)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING *),
       e AS (
         INSERT INTO ledger.correction_events (correction_id, event, actor_id, actor_roles, reason, metadata)
         SELECT id, 'submitted', maker_id, maker_roles, reason, $12::jsonb FROM c)
       SELECT ${CORRECTION_COLUMNS} FROM c`,
      [
        dto.idempotencyKey.toLowerCase(),
        hash,
        accountId,
        dto.direction,
        amount,
        account.currency.trim(),
        dto.reason,
        amount > this.settings.complianceLimit,
        maker.id,
        maker.roles,
        correlationId,
        JSON.stringify({ tokenId: maker.tokenId, correlationId }),
      ],
    );
    return this.createdOrReplayed(created, dto.idempotencyKey, hash, maker);
  }

  /**
   * The reversal of one whole ledger transaction, named by id or reference. Refused here when the
   * transaction is itself a reversal; "at most one live reversal request per transaction" is the
   * database's (UQ_corrections_live_reversal), so two makers racing get one request and one 409.
   *
   * The compliance limit is compared with the most that any ONE account of the transaction moves
   * when it is reversed (the net of its entries), never less than the transaction's amount. The
   * amount alone understates it: reversing a payment gives the payer amount + fee back, and a cash
   * operation's reversal also takes the commission back from the agent. The per-account figure is
   * preferred to a flat "amount + fee" because it follows the entries themselves, whatever the
   * transaction's type and however its fee and commission were split, and it is what the limit is
   * about: how much a single operator decision can put into, or take out of, one account.
   */
  private async submitReversal(dto: SubmitCorrectionDto, maker: OperatorIdentity): Promise<{ view: CorrectionView; replayed: boolean }> {
    const target = await readReversalTarget(
      this.db,
      dto.transactionId ? { id: dto.transactionId.toLowerCase() } : { referenceId: dto.referenceId! },
    );
    if (!target) throw new AppException('TRANSACTION_NOT_FOUND');
    if (target.reversalOf) throw new AppException('REVERSAL_OF_REVERSAL');
    const amount = target.amount;
    const largestMovement = Math.max(amount, largestAccountMovement(inverseOf(target.entries)));
    const hash = requestHash({ kind: 'REVERSAL', transactionId: target.id, reason: dto.reason });
    const correlationId = currentContext()?.correlationId ?? null;
    let created: CorrectionRow | undefined;
    try {
      [created] = await this.db.query<CorrectionRow>(
        `WITH c AS (
           INSERT INTO ledger.corrections (idempotency_key, request_hash, kind, reversed_transaction_id, amount, currency, reason, status,
                                           requires_compliance, maker_id, maker_roles, correlation_id)
           VALUES ($1, $2, 'REVERSAL', $3, $4, $5, $6, 'PENDING_APPROVAL', $7, $8, $9, $10)
           ON CONFLICT (idempotency_key) DO NOTHING
           RETURNING *),
         e AS (
           INSERT INTO ledger.correction_events (correction_id, event, actor_id, actor_roles, reason, metadata)
           SELECT id, 'submitted', maker_id, maker_roles, reason, $11::jsonb FROM c)
         SELECT ${CORRECTION_COLUMNS} FROM c`,
        [
          dto.idempotencyKey.toLowerCase(),
          hash,
          target.id,
          amount,
          target.currency,
          dto.reason,
          largestMovement > this.settings.complianceLimit,
          maker.id,
          maker.roles,
          correlationId,
          JSON.stringify({ tokenId: maker.tokenId, correlationId, largestAccountMovement: largestMovement }),
        ],
      );
    } catch (error) {
      if (!isUniqueViolation(error, 'UQ_corrections_live_reversal')) throw error;
      const [live] = await this.db.query<{ id: string; status: string }>(
        `SELECT id, status FROM ledger.corrections WHERE reversed_transaction_id = $1 AND status IN ('PENDING_APPROVAL', 'EXECUTED')`,
        [target.id],
      );
      if (live?.status === 'EXECUTED') throw new AppException('TRANSACTION_ALREADY_REVERSED', `Reversed by correction ${live.id}`);
      throw new AppException('REVERSAL_ALREADY_REQUESTED', `Correction ${live?.id ?? '(unknown)'} already asks for this reversal`);
    }
    return this.createdOrReplayed(created, dto.idempotencyKey, hash, maker);
  }

  /** The row just inserted (201), or the one stored under the same key for the same maker and body (200). */
  private async createdOrReplayed(
    created: CorrectionRow | undefined,
    idempotencyKey: string,
    hash: string,
    maker: OperatorIdentity,
  ): Promise<{ view: CorrectionView; replayed: boolean }> {
    if (created) return { view: toCorrectionView(created), replayed: false };
    const existing = await this.row(undefined, idempotencyKey.toLowerCase());
    if (!existing || existing.request_hash !== hash || existing.maker_id !== maker.id) {
      throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was used for another correction');
    }
    return { view: toCorrectionView(existing), replayed: true };
  }

  /** A checker's refusal: an approver other than the maker, with a reason; nothing moves. */
  async reject(id: string, checker: OperatorIdentity, dto: RejectCorrectionDto): Promise<CorrectionView> {
    OperatorTokens.require(checker, this.settings.approverRoles, 'reject a correction');
    const current = await this.row(id);
    if (!current) throw new AppException('CORRECTION_NOT_FOUND');
    if (current.status !== 'PENDING_APPROVAL') throw new AppException('CORRECTION_ALREADY_DECIDED');
    if (current.maker_id === checker.id) throw new AppException('CORRECTION_SAME_USER');
    const [rejected] = await this.db.query<CorrectionRow>(
      `WITH u AS (
         UPDATE ledger.corrections SET status = 'REJECTED', checker_id = $2, checker_roles = $3, decided_at = now(), decision_reason = $4
         WHERE id = $1 AND status = 'PENDING_APPROVAL' RETURNING *),
       e AS (
         INSERT INTO ledger.correction_events (correction_id, event, actor_id, actor_roles, reason, metadata)
         SELECT id, 'rejected', $2, $3, $4, $5::jsonb FROM u)
       SELECT ${CORRECTION_COLUMNS} FROM u`,
      [
        id,
        checker.id,
        checker.roles,
        dto.reason,
        JSON.stringify({ tokenId: checker.tokenId, correlationId: currentContext()?.correlationId }),
      ],
    );
    if (!rejected) throw new AppException('CORRECTION_ALREADY_DECIDED'); // decided by someone else meanwhile
    return this.get(id);
  }

  /**
   * A pending correction nobody decided in time (the request of the orchestrator's maker-checker
   * engine it belongs to expired): EXPIRED, nothing moves, no checker; journaled as `expired` under
   * the calling service. An expired REVERSAL frees its transaction for a new request.
   */
  async expire(id: string, caller: string, reason: string): Promise<CorrectionView> {
    const current = await this.row(id);
    if (!current) throw new AppException('CORRECTION_NOT_FOUND');
    if (current.status === 'EXPIRED') return this.get(id);
    if (current.status !== 'PENDING_APPROVAL') throw new AppException('CORRECTION_ALREADY_DECIDED');
    const [expired] = await this.db.query<CorrectionRow>(
      `WITH u AS (
         UPDATE ledger.corrections SET status = 'EXPIRED', decided_at = now(), decision_reason = $3
         WHERE id = $1 AND status = 'PENDING_APPROVAL' RETURNING *),
       e AS (
         INSERT INTO ledger.correction_events (correction_id, event, actor_id, actor_roles, reason, metadata)
         SELECT id, 'expired', $2, '{}', $3, $4::jsonb FROM u)
       SELECT ${CORRECTION_COLUMNS} FROM u`,
      [id, `system:${caller}`, reason, JSON.stringify({ correlationId: currentContext()?.correlationId ?? null })],
    );
    if (!expired) {
      const now = await this.row(id);
      if (now?.status === 'EXPIRED') return this.get(id);
      throw new AppException('CORRECTION_ALREADY_DECIDED');
    }
    return this.get(id);
  }

  /** The correction submitted under `idempotencyKey`, with its journal (404 CORRECTION_NOT_FOUND). */
  async byKey(idempotencyKey: string): Promise<CorrectionView> {
    const row = await this.row(undefined, idempotencyKey.toLowerCase());
    if (!row) throw new AppException('CORRECTION_NOT_FOUND');
    return this.get(row.id);
  }

  /** One correction without its events (one query). */
  async view(id: string): Promise<CorrectionView> {
    const row = await this.row(id);
    if (!row) throw new AppException('CORRECTION_NOT_FOUND');
    return toCorrectionView(row);
  }

  /** One correction with every step of its journal. */
  async get(id: string): Promise<CorrectionView> {
    const view = await this.view(id);
    const events = await this.db.query<{
      event: string;
      actor_id: string;
      actor_roles: string[];
      reason: string | null;
      metadata: Record<string, unknown>;
      created_at: Date;
    }>(
      `SELECT event, actor_id, actor_roles, reason, metadata, created_at FROM ledger.correction_events WHERE correction_id = $1 ORDER BY seq`,
      [id],
    );
    return {
      ...view,
      events: events.map((e): CorrectionEventView => ({
        event: e.event,
        actorId: e.actor_id,
        actorRoles: e.actor_roles,
        reason: e.reason,
        metadata: e.metadata,
        at: e.created_at.toISOString(),
      })),
    };
  }

  async list(query: ListCorrectionsQuery): Promise<CorrectionView[]> {
    const rows = await this.db.query<CorrectionRow>(
      `SELECT ${CORRECTION_COLUMNS} FROM ledger.corrections WHERE ($1::text IS NULL OR status = $1) ORDER BY submitted_at DESC, id LIMIT $2`,
      [query.status ?? null, query.limit ?? 50],
    );
    return rows.map(toCorrectionView);
  }

  private async row(id?: string, idempotencyKey?: string): Promise<CorrectionRow | undefined> {
    const [row] = await this.db.query<CorrectionRow>(
      `SELECT ${CORRECTION_COLUMNS} FROM ledger.corrections WHERE ${id ? 'id = $1' : 'idempotency_key = $1'}`,
      [id ?? idempotencyKey],
    );
    return row;
  }
}
