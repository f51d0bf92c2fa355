import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRows, type RawQueryable, withSessionLock } from '@mm/platform';
import type { ApprovalAction, ApprovalStatus, ApprovalTarget, PreparedState } from './approval-handler';

/** One row of orchestrator.approval_requests, as read. */
export interface ApprovalRow {
  id: string;
  action: ApprovalAction;
  /** as stored; a PENDING row past its expiry is EXPIRED for everyone (see `effectiveStatus`) */
  status: ApprovalStatus;
  four_eyes: boolean;
  target_type: ApprovalTarget['type'];
  target_id: string;
  summary: string;
  amount: string | null;
  currency: string | null;
  payload: Record<string, unknown>;
  dedup_key: string;
  reason: string;
  maker_id: string;
  maker_role: string;
  checker_id: string | null;
  checker_role: string | null;
  decision_reason: string | null;
  prepared: PreparedState;
  result: Record<string, unknown> | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  claimed_at: Date | null;
  executed_at: Date | null;
  /** when what prepare reserved was given back (final rows that are not EXECUTED) */
  released_at: Date | null;
  /** computed: expires_at <= now() on the database's clock */
  expired: boolean;
}

export interface NewApprovalRow {
  id: string;
  action: ApprovalAction;
  fourEyes: boolean;
  target: ApprovalTarget;
  summary: string;
  amount: { value: number; currency: string } | null;
  payload: unknown;
  dedupKey: string;
  reason: string;
  makerId: string;
  makerRole: string;
  ttlSeconds: number;
  prepared: PreparedState;
}

export interface ApprovalFilter {
  status?: ApprovalStatus;
  action?: ApprovalAction;
  makerId?: string;
  targetType?: string;
  targetId?: string;
  createdBefore?: string;
  /** keyset: strictly older than this (created_at, id) */
  after?: [string, string];
  limit: number;
}

const T = 'orchestrator.approval_requests';
const P = 'orchestrator.approval_preparations';
const COLUMNS = `*, expires_at <= now() AS expired`;
/** The status everyone sees: a pending request past its expiry is expired, whether or not the sweep has closed it yet. */
const EFFECTIVE_STATUS = `CASE WHEN status = 'PENDING' AND expires_at <= now() THEN 'EXPIRED' ELSE status END`;

/** The SQL of the engine, one statement per state change; every change is conditional on the status it leaves. */
@Injectable()
export class ApprovalRequestsStore {
  constructor(private readonly db: DataSource) {}

  /** plain statements, outside any transaction */
  get queryable(): RawQueryable {
    return this.db;
  }

  transaction<R>(work: (m: EntityManager) => Promise<R>): Promise<R> {
    return this.db.transaction(work);
  }

  /** Inserts a PENDING request, or returns null when an identical one is live (the partial unique index). */
  async insert(db: RawQueryable, row: NewApprovalRow): Promise<ApprovalRow | null> {
    const [inserted] = await queryRows<ApprovalRow>(
      db,
      `INSERT INTO ${T} (id, action, status, four_eyes, target_type, target_id, summary, amount, currency, payload, dedup_key,
                         reason, maker_id, maker_role, expires_at, prepared)
       VALUES ($1, $2, 'PENDING', $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13,
               date_trunc('milliseconds', now()) + make_interval(secs => $14), $15::jsonb)
       ON CONFLICT (action, dedup_key) WHERE status IN ('PENDING', 'EXECUTING') DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        row.id,
        row.action,
        row.fourEyes,
        row.target.type,
        row.target.id,
        row.summary,
        row.amount?.value ?? null,
        row.amount?.currency ?? null,
        JSON.stringify(row.payload),
        row.dedupKey,
        row.reason,
        row.makerId,
        row.makerRole,
        row.ttlSeconds,
        row.prepared === null ? null : JSON.stringify(row.prepared),
      ],
    );
    return inserted ?? null;
  }

  /** The live request an insert collided with. */
  async findLive(db: RawQueryable, action: ApprovalAction, dedupKey: string): Promise<string | null> {
    const [row] = await queryRows<{ id: string }>(
      db,
      `SELECT id FROM ${T} WHERE action = $1 AND dedup_key = $2 AND status IN ('PENDING', 'EXECUTING')`,
      [action, dedupKey],
    );
    return row?.id ?? null;
  }

  /** The write-ahead mark of a submission whose prepare is about to reach another service (committed before it does). */
  async markPreparation(id: string, action: ApprovalAction, payload: unknown): Promise<void> {
    await this.db.query(`INSERT INTO ${P} (request_id, action, payload) VALUES ($1, $2, $3::jsonb)`, [id, action, JSON.stringify(payload)]);
  }

  /** The mark removed: the request is stored (same transaction), or nothing was reserved, or it was given back. */
  async unmarkPreparation(id: string, db: RawQueryable = this.db): Promise<void> {
    await db.query(`DELETE FROM ${P} WHERE request_id = $1`, [id]);
  }

  /** Marks older than `seconds` whose request was never stored: reservations nobody owns. */
  async strayPreparations(
    seconds: number,
    limit: number,
  ): Promise<Array<{ request_id: string; action: ApprovalAction; payload: unknown }>> {
    return queryRows(
      this.db,
      `SELECT p.request_id, p.action, p.payload FROM ${P} p
        WHERE p.created_at <= now() - make_interval(secs => $1) AND NOT EXISTS (SELECT 1 FROM ${T} r WHERE r.id = p.request_id)
        ORDER BY p.created_at LIMIT $2`,
      [seconds, limit],
    );
  }

  async get(id: string, db: RawQueryable = this.db): Promise<ApprovalRow | null> {
    const [row] = await queryRows<ApprovalRow>(db, `SELECT ${COLUMNS} FROM ${T} WHERE id = $1`, [id]);
    return row ?? null;
  }

  /**
   * PENDING → EXECUTING for one checker. One conditional UPDATE: of two approvals at once, exactly one
   * gets the row back; the other sees it decided.
   */
  async claim(db: RawQueryable, id: string, checker: { id: string; role: string }, reason: string | null): Promise<ApprovalRow | null> {
    const [row] = await queryRows<ApprovalRow>(
      db,
      `UPDATE ${T} SET status = 'EXECUTING', checker_id = $2, checker_role = $3, decision_reason = $4, decided_at = now(), claimed_at = now()
        WHERE id = $1 AND status = 'PENDING' AND expires_at > now()
       RETURNING ${COLUMNS}`,
      [id, checker.id, checker.role, reason],
    );
    return row ?? null;
  }

  /**
   * EXECUTING → PENDING: the place the action runs refused this checker before doing anything (their
   * role); the request waits for a checker it accepts. Four-eyes requests only.
   */
  async unclaim(id: string, checkerId: string): Promise<ApprovalRow | null> {
    const [row] = await queryRows<ApprovalRow>(
      this.db,
      `UPDATE ${T} SET status = 'PENDING', checker_id = NULL, checker_role = NULL, decision_reason = NULL, decided_at = NULL, claimed_at = NULL
        WHERE id = $1 AND status = 'EXECUTING' AND four_eyes AND checker_id = $2
       RETURNING ${COLUMNS}`,
      [id, checkerId],
    );
    return row ?? null;
  }

  /** Records that what prepare reserved was given back (once). */
  async released(id: string): Promise<void> {
    await this.db.query(
      `UPDATE ${T} SET released_at = now() WHERE id = $1 AND released_at IS NULL AND status IN ('REJECTED', 'EXPIRED', 'FAILED')`,
      [id],
    );
  }

  /** Final requests whose reservation is not given back yet (a release that failed, or a crash before it), oldest first. */
  async unreleased(limit: number): Promise<ApprovalRow[]> {
    return queryRows<ApprovalRow>(
      this.db,
      `SELECT ${COLUMNS} FROM ${T} WHERE released_at IS NULL AND status IN ('REJECTED', 'EXPIRED', 'FAILED') ORDER BY decided_at, id LIMIT $1`,
      [limit],
    );
  }

  async reject(id: string, checker: { id: string; role: string }, reason: string): Promise<ApprovalRow | null> {
    const [row] = await queryRows<ApprovalRow>(
      this.db,
      `UPDATE ${T} SET status = 'REJECTED', checker_id = $2, checker_role = $3, decision_reason = $4, decided_at = now()
        WHERE id = $1 AND status = 'PENDING' AND expires_at > now()
       RETURNING ${COLUMNS}`,
      [id, checker.id, checker.role, reason],
    );
    return row ?? null;
  }

  async executed(id: string, result: Record<string, unknown> | null): Promise<ApprovalRow | null> {
    const [row] = await queryRows<ApprovalRow>(
      this.db,
      `UPDATE ${T} SET status = 'EXECUTED', result = $2::jsonb, executed_at = now() WHERE id = $1 AND status = 'EXECUTING' RETURNING ${COLUMNS}`,
      [id, JSON.stringify(result)],
    );
    return row ?? null;
  }

  async failed(id: string, failure: { code: string; message: string }): Promise<ApprovalRow | null> {
    const [row] = await queryRows<ApprovalRow>(
      this.db,
      `UPDATE ${T} SET status = 'FAILED', failure_code = $2, failure_message = $3, executed_at = now()
        WHERE id = $1 AND status = 'EXECUTING' RETURNING ${COLUMNS}`,
      [id, failure.code, failure.message.slice(0, 1000)],
    );
    return row ?? null;
  }

  /** PENDING past its expiry → EXPIRED: one request (`id`), or a batch for the sweep, oldest first. */
  async expire(options: { id?: string; limit: number }): Promise<ApprovalRow[]> {
    return queryRows<ApprovalRow>(
      this.db,
      `UPDATE ${T} SET status = 'EXPIRED', decided_at = now()
        WHERE id IN (SELECT id FROM ${T} WHERE status = 'PENDING' AND expires_at <= now() AND ($1::uuid IS NULL OR id = $1)
                      ORDER BY expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [options.id ?? null, options.limit],
    );
  }

  /** Requests left EXECUTING longer than the grace period (a crash mid-execution), claimed again for one more run. */
  async reclaimStuck(graceSeconds: number, limit: number): Promise<ApprovalRow[]> {
    return queryRows<ApprovalRow>(
      this.db,
      `UPDATE ${T} SET claimed_at = now()
        WHERE id IN (SELECT id FROM ${T} WHERE status = 'EXECUTING' AND claimed_at <= now() - make_interval(secs => $1)
                      ORDER BY claimed_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [graceSeconds, limit],
    );
  }

  /** Newest first, filtered; the status filter reads the effective status. */
  async list(filter: ApprovalFilter): Promise<ApprovalRow[]> {
    return queryRows<ApprovalRow>(
      this.db,
      `SELECT ${COLUMNS} FROM ${T}
        WHERE ($1::text IS NULL OR ${EFFECTIVE_STATUS} = $1)
          AND ($2::text IS NULL OR action = $2)
          AND ($3::text IS NULL OR maker_id = $3)
          AND ($4::text IS NULL OR target_type = $4)
          AND ($5::text IS NULL OR target_id = $5)
          AND ($6::timestamptz IS NULL OR created_at < $6)
          AND ($7::timestamptz IS NULL OR (created_at, id) < ($7::timestamptz, $8::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $9`,
      [
        filter.status ?? null,
        filter.action ?? null,
        filter.makerId ?? null,
        filter.targetType ?? null,
        filter.targetId ?? null,
        filter.createdBefore ?? null,
        filter.after?.[0] ?? null,
        filter.after?.[1] ?? null,
        filter.limit,
      ],
    );
  }

  /** Runs `work` holding a session advisory lock (on a connection outside the pool), or not at all when another holds it. */
  withAdvisoryLock(key: number, work: () => Promise<void>): Promise<boolean> {
    return withSessionLock(this.db, '$1::bigint', [key], work);
  }
}

export function effectiveStatus(row: ApprovalRow): ApprovalStatus {
  return row.status === 'PENDING' && row.expired ? 'EXPIRED' : row.status;
}
