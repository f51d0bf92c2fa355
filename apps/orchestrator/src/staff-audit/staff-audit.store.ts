import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@mm/platform';
import type { StaffAuditEntry } from './audit-record';
import type { AuditTrailQueryDto } from './dto/audit-trail-query.dto';
import type { AuditTrailPageView, StaffAuditRecordView } from './staff-audit.views';

interface RecordRow {
  seq: string;
  at: Date;
  actor_user_id: string;
  actor_role: string;
  action: string;
  action_name: string | null;
  target_type: string | null;
  target_id: string | null;
  reason: string | null;
  request_id: string;
  phase: 'started' | 'outcome';
  outcome_status: number | null;
  outcome_code: string | null;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/**
 * The SQL of the trail. `append` writes only what the application knows: the database numbers,
 * times and chains the row (trigger `staff_audit_chain`), so the application cannot choose a hash.
 */
@Injectable()
export class StaffAuditStore {
  constructor(private readonly db: DataSource) {}

  async append(e: StaffAuditEntry): Promise<number> {
    const [row] = await queryRows<{ seq: string }>(
      this.db,
      `INSERT INTO orchestrator.staff_audit_trail
         (actor_user_id, actor_role, action, action_name, target_type, target_id, reason, request_id, phase, outcome_status, outcome_code, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING seq`,
      [
        e.actorUserId,
        e.actorRole,
        e.action,
        e.actionName,
        e.targetType,
        e.targetId,
        e.reason,
        e.requestId,
        e.phase,
        e.outcomeStatus,
        e.outcomeCode,
        JSON.stringify(e.details),
      ],
    );
    return Number(row.seq);
  }

  async search(q: AuditTrailQueryDto): Promise<AuditTrailPageView> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (q.actor) add('actor_user_id = ?', q.actor);
    if (q.role) add('actor_role = ?', q.role);
    if (q.action) {
      params.push(q.action);
      where.push(`(action = $${params.length} OR action_name = $${params.length})`);
    }
    if (q.targetType) add('target_type = ?', q.targetType);
    if (q.targetId) add('target_id = ?', q.targetId);
    if (q.from) add('at >= ?', q.from);
    if (q.to) add('at < ?', q.to);
    if (q.outcome === 'success') where.push('outcome_status < 400');
    if (q.outcome === 'refused') where.push('outcome_status >= 400');
    if (q.code) add('outcome_code = ?', q.code);
    if (q.requestId) add('request_id = ?', q.requestId);
    if (q.cursor) add('seq < ?', q.cursor);
    const limit = q.limit ?? 50;
    params.push(limit + 1);
    const rows = await queryRows<RecordRow>(
      this.db,
      `SELECT seq, at, actor_user_id, actor_role, action, action_name, target_type, target_id, reason, request_id, phase,
              outcome_status, outcome_code, details, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash
         FROM orchestrator.staff_audit_trail
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    return { items: page.map(toView), nextCursor: rows.length > limit ? page[page.length - 1].seq : null };
  }
}

function toView(r: RecordRow): StaffAuditRecordView {
  return {
    seq: Number(r.seq),
    at: new Date(r.at).toISOString(),
    actor: { userId: r.actor_user_id, role: r.actor_role },
    action: r.action,
    actionName: r.action_name,
    target: r.target_type === null && r.target_id === null ? null : { type: r.target_type, id: r.target_id },
    reason: r.reason,
    requestId: r.request_id,
    phase: r.phase,
    outcome: r.outcome_status === null ? null : { status: r.outcome_status, code: r.outcome_code },
    details: r.details,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}
