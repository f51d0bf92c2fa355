import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@mm/platform';
import type { SagaError, SagaRecord, SagaStatus, StepEvent } from './saga.types';

interface SagaRow {
  id: string;
  kind: string;
  status: SagaStatus;
  idempotency_key: string | null;
  request_hash: string;
  phone: string;
  context: unknown;
  result: unknown;
  error: SagaError | null;
  correlation_id: string | null;
  requested_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, kind, status, idempotency_key, request_hash, phone, context, result, error, correlation_id, requested_by, created_at, updated_at';

function toRecord<C>(row: SagaRow): SagaRecord<C> {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    phone: row.phone,
    context: row.context as C,
    result: row.result,
    error: row.error,
    correlationId: row.correlation_id,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewSaga<C> {
  id: string;
  kind: string;
  idempotencyKey: string | null;
  requestHash: string;
  phone: string;
  context: C;
  correlationId: string | null;
  requestedBy: string | null;
}

/**
 * The saga log (orchestrator.sagas + the append-only orchestrator.saga_events). Every write is its
 * own committed statement, made before and after each call to another service, so whatever a
 * crash interrupts is known afterwards. Each event also touches the run's `updated_at`: a run
 * whose log went quiet is one nobody is driving any more.
 */
@Injectable()
export class SagaLog {
  constructor(private readonly db: DataSource) {}

  /** The new run, or (same idempotency key) the run that already holds the key. */
  async start<C>(saga: NewSaga<C>): Promise<{ created: true; record: SagaRecord<C> } | { created: false; record: SagaRecord<C> }> {
    const rows = await queryRows<SagaRow>(
      this.db,
      `INSERT INTO orchestrator.sagas (id, kind, status, idempotency_key, request_hash, phone, context, correlation_id, requested_by)
       VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8)
       ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING ${COLUMNS}`,
      [
        saga.id,
        saga.kind,
        saga.idempotencyKey,
        saga.requestHash,
        saga.phone,
        JSON.stringify(saga.context),
        saga.correlationId,
        saga.requestedBy,
      ],
    );
    if (rows[0]) return { created: true, record: toRecord<C>(rows[0]) };
    const existing = saga.idempotencyKey ? await this.byKey<C>(saga.idempotencyKey) : undefined;
    // The holder of the key released it in between (it ended retryably): try once more.
    if (!existing) return this.start(saga);
    return { created: false, record: existing };
  }

  async load<C>(id: string): Promise<SagaRecord<C> | undefined> {
    const rows = await queryRows<SagaRow>(this.db, `SELECT ${COLUMNS} FROM orchestrator.sagas WHERE id = $1`, [id]);
    return rows[0] && toRecord<C>(rows[0]);
  }

  async byKey<C>(key: string): Promise<SagaRecord<C> | undefined> {
    const rows = await queryRows<SagaRow>(this.db, `SELECT ${COLUMNS} FROM orchestrator.sagas WHERE idempotency_key = $1`, [key]);
    return rows[0] && toRecord<C>(rows[0]);
  }

  async event(sagaId: string, step: string, event: StepEvent, error?: SagaError): Promise<void> {
    await queryRows(
      this.db,
      `WITH e AS (INSERT INTO orchestrator.saga_events (saga_id, step, event, error) VALUES ($1, $2, $3, $4) RETURNING saga_id)
       UPDATE orchestrator.sagas SET updated_at = now() WHERE id = (SELECT saga_id FROM e)`,
      [sagaId, step, event, error ? JSON.stringify(error) : null],
    );
  }

  async saveContext<C>(sagaId: string, context: C): Promise<void> {
    await queryRows(this.db, `UPDATE orchestrator.sagas SET context = $2, updated_at = now() WHERE id = $1`, [
      sagaId,
      JSON.stringify(context),
    ]);
  }

  async setStatus(sagaId: string, status: SagaStatus, outcome: { result?: unknown; error?: SagaError } = {}): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE orchestrator.sagas SET status = $2, result = COALESCE($3, result), error = COALESCE($4, error), updated_at = now() WHERE id = $1`,
      [
        sagaId,
        status,
        outcome.result === undefined ? null : JSON.stringify(outcome.result),
        outcome.error ? JSON.stringify(outcome.error) : null,
      ],
    );
  }

  /** The last event of each step of a run, in the order the steps first appeared. */
  async stepStates(sagaId: string): Promise<Map<string, StepEvent>> {
    const rows = await queryRows<{ step: string; event: StepEvent }>(
      this.db,
      `SELECT step, event FROM orchestrator.saga_events WHERE saga_id = $1 ORDER BY id`,
      [sagaId],
    );
    const states = new Map<string, StepEvent>();
    for (const row of rows) states.set(row.step, row.event);
    return states;
  }

  async events(sagaId: string): Promise<Array<{ step: string; event: StepEvent; error: SagaError | null }>> {
    return queryRows(this.db, `SELECT step, event, error FROM orchestrator.saga_events WHERE saga_id = $1 ORDER BY id`, [sagaId]);
  }

  /**
   * Claims the runs nobody drives any more (running or compensating, quiet for `staleMs`): one
   * statement that also touches them, so two instances recovering at once never take the same run.
   */
  async claimAbandoned(staleMs: number, limit = 50): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `UPDATE orchestrator.sagas SET updated_at = now()
        WHERE id IN (SELECT id FROM orchestrator.sagas
                      WHERE status IN ('running', 'compensating') AND updated_at <= now() - make_interval(secs => $1::double precision / 1000)
                      ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [staleMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * A run that ended retryably (compensated after a fault of ours or of a service) gives its
   * idempotency key back, so the client's retry with that key starts a new run.
   */
  async releaseKey(sagaId: string): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE orchestrator.sagas SET idempotency_key = NULL WHERE id = $1 AND status IN ('compensated', 'compensation_failed')`,
      [sagaId],
    );
  }
}
