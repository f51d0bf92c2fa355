import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { decodeOperationCursor, encodeOperationCursor } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import type { RegistrationContext } from '../../registration/registration.types';
import type { SagaError } from '../../workflows/saga.types';
import { OPEN_WORKFLOW_STATES, type WorkflowQuery } from './dto/workflow.query';
import type { WorkflowPageView, WorkflowStepView, WorkflowView } from './dto/workflow.views';

interface RunRow {
  id: string;
  kind: string;
  status: string;
  phone: string;
  context: Partial<RegistrationContext> | null;
  error: SagaError | null;
  correlation_id: string | null;
  requested_by: string | null;
  created_at: Date;
  updated_at: Date;
  at_key: string;
}

interface EventRow {
  saga_id: string;
  step: string;
  event: string;
  error: SagaError | null;
  at: Date;
}

const COLUMNS = `id, kind, status, phone, context, error, correlation_id, requested_by, created_at, updated_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_key`;

/**
 * Workflow runs for staff, read from the saga log (orchestrator.sagas and its append-only
 * saga_events): the registrations that are not finished or were undone, each with its log. A PIN
 * reset is one call to auth with nothing to undo, so it keeps no saga log and is not listed.
 */
@Injectable()
export class WorkflowsService {
  constructor(private readonly db: DataSource) {}

  async list(query: WorkflowQuery): Promise<WorkflowPageView> {
    const params: unknown[] = [query.state ? [query.state] : [...OPEN_WORKFLOW_STATES]];
    const where = ['status = ANY($1::text[])'];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (query.kind) add((n) => `kind = ${n}`, query.kind);
    if (query.since) add((n) => `created_at >= ${n}::timestamptz`, query.since);
    if (query.cursor !== undefined) {
      const key = decodeOperationCursor(query.cursor);
      if (!key) {
        throw new AppException('VALIDATION_ERROR', 'cursor: not a cursor this API issued', {
          errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'not a cursor this API issued' }],
        });
      }
      params.push(key[0], key[1]);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    const limit = query.limit ?? 20;
    params.push(limit + 1);
    const rows = await queryRows<RunRow>(
      this.db,
      `SELECT ${COLUMNS} FROM orchestrator.sagas WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: await this.withLogs(page),
      nextCursor: rows.length > limit ? encodeOperationCursor(last.at_key, last.id) : null,
    };
  }

  /** One run, whatever its state (a succeeded one too: a link from elsewhere may name it). */
  async get(id: string): Promise<WorkflowView> {
    const rows = await queryRows<RunRow>(this.db, `SELECT ${COLUMNS} FROM orchestrator.sagas WHERE id = $1`, [id]);
    if (rows.length === 0) throw new AppException('WORKFLOW_NOT_FOUND');
    return (await this.withLogs(rows))[0];
  }

  private async withLogs(runs: RunRow[]): Promise<WorkflowView[]> {
    if (runs.length === 0) return [];
    const events = await queryRows<EventRow>(
      this.db,
      `SELECT saga_id, step, event, error, at FROM orchestrator.saga_events WHERE saga_id = ANY($1::uuid[]) ORDER BY saga_id, id`,
      [runs.map((r) => r.id)],
    );
    const logs = new Map<string, WorkflowStepView[]>();
    for (const e of events) {
      const log = logs.get(e.saga_id) ?? [];
      log.push({ step: e.step, event: e.event, error: errorView(e.error), at: e.at.toISOString() });
      logs.set(e.saga_id, log);
    }
    return runs.map((r) => ({
      id: r.id,
      kind: r.kind,
      state: r.status,
      phone: r.phone,
      subject: r.context?.userId
        ? {
            firstName: r.context.firstName ?? '',
            lastName: r.context.lastName ?? '',
            role: r.context.role ?? '',
            userId: r.context.userId,
            profileId: r.context.profileId ?? '',
            walletId: r.context.wallet?.walletId ?? null,
          }
        : null,
      error: errorView(r.error),
      correlationId: r.correlation_id,
      requestedBy: r.requested_by,
      startedAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
      steps: logs.get(r.id) ?? [],
    }));
  }
}

function errorView(e: SagaError | null): WorkflowView['error'] {
  return e ? { code: e.code, message: e.message, status: e.status } : null;
}
