import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { requestHash } from '../idempotency/canonical-hash';
import { type CorrectionEventView, CORRECTION_COLUMNS, type CorrectionRow, type CorrectionView, toCorrectionView } from './correction-view';
import { CorrectionsSettings } from './corrections.settings';
import type { RejectCorrectionDto } from './dto/decide-correction.dto';
import type { ListCorrectionsQuery } from './dto/list-corrections.dto';
import type { SubmitCorrectionDto } from './dto/submit-correction.dto';
import { type OperatorIdentity, OperatorTokens } from './operator-tokens.service';

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
    const accountId = dto.accountId.toLowerCase();
    const [account] = await this.db.query<{ currency: string; account_type: string }>(
      `SELECT currency, account_type FROM ledger.accounts WHERE id = $1`,
      [accountId],
    );
    if (!account) throw new AppException('ACCOUNT_NOT_FOUND');
    if (account.account_type === 'suspense') throw new AppException('ACCOUNT_NOT_ALLOWED', 'The suspense account cannot correct itself');
    const hash = requestHash({ accountId, direction: dto.direction, amount: dto.amount, reason: dto.reason });
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
        dto.amount,
        account.currency.trim(),
        dto.reason,
        dto.amount > this.settings.complianceLimit,
        maker.id,
        maker.roles,
        correlationId,
        JSON.stringify({ tokenId: maker.tokenId, correlationId }),
      ],
    );
    if (created) return { view: toCorrectionView(created), replayed: false };
    const existing = await this.row(undefined, dto.idempotencyKey.toLowerCase());
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

  async get(id: string): Promise<CorrectionView> {
    const row = await this.row(id);
    if (!row) throw new AppException('CORRECTION_NOT_FOUND');
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
      ...toCorrectionView(row),
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
