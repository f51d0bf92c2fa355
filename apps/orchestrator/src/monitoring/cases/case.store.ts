import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { type RawQueryable, queryRows } from '@mm/platform';
import {
  ALERT_COLUMNS,
  type AlertRow,
  CASE_COLUMNS,
  type CaseEventKind,
  type CaseEventRow,
  type CaseRow,
  type OperationRow,
} from './case.types';

/**
 * The SQL of cases, their history and their alerts. Every change of a case is written with its
 * history event in the caller's transaction; reads take the case row `FOR UPDATE` first when the
 * caller is about to change it, so two officers acting at once are serialised on the case.
 */
@Injectable()
export class CaseStore {
  constructor(readonly db: DataSource) {}

  transaction<T>(work: (tx: RawQueryable) => Promise<T>): Promise<T> {
    return this.db.transaction((manager) => work(manager));
  }

  async find(id: string, db: RawQueryable = this.db, lock = false): Promise<CaseRow | undefined> {
    const rows = await queryRows<CaseRow>(
      db,
      `SELECT ${CASE_COLUMNS} FROM orchestrator.monitoring_cases c WHERE c.id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0];
  }

  async get(id: string, db: RawQueryable = this.db, lock = false): Promise<CaseRow> {
    const found = await this.find(id, db, lock);
    if (!found) throw new AppException('CASE_NOT_FOUND', `No compliance case ${id}`);
    return found;
  }

  async event(
    db: RawQueryable,
    caseId: string,
    kind: CaseEventKind,
    actorId: string | null,
    details: Record<string, unknown>,
  ): Promise<void> {
    await db.query(`INSERT INTO orchestrator.monitoring_case_events (case_id, kind, actor_id, details) VALUES ($1, $2, $3, $4::jsonb)`, [
      caseId,
      kind,
      actorId,
      JSON.stringify(details),
    ]);
  }

  events(caseId: string, db: RawQueryable = this.db): Promise<CaseEventRow[]> {
    return queryRows<CaseEventRow>(
      db,
      `SELECT id::text, case_id, kind, actor_id, details, at FROM orchestrator.monitoring_case_events WHERE case_id = $1 ORDER BY id`,
      [caseId],
    );
  }

  alertsOfCase(caseId: string, db: RawQueryable = this.db): Promise<AlertRow[]> {
    return queryRows<AlertRow>(
      db,
      `SELECT ${ALERT_COLUMNS} FROM orchestrator.monitoring_alerts a WHERE a.case_id = $1 ORDER BY a.raised_at, a.id`,
      [caseId],
    );
  }

  /** The monitored operations of these transactions, oldest first. */
  operations(transactionIds: string[], db: RawQueryable = this.db): Promise<OperationRow[]> {
    if (transactionIds.length === 0) return Promise.resolve([]);
    return queryRows<OperationRow>(
      db,
      `SELECT DISTINCT ON (occurred_at, transaction_id) event_id, transaction_id, reference, intent_type, amount, fee, currency,
              source_account_id, destination_account_id, source_user_id, source_kind, destination_user_id, destination_kind, occurred_at
         FROM orchestrator.monitored_operations WHERE transaction_id = ANY($1::uuid[]) ORDER BY occurred_at, transaction_id, event_id`,
      [transactionIds],
    );
  }

  /** A monitored operation by its readable reference (what an officer attaches as evidence). */
  async operationByReference(reference: string, db: RawQueryable = this.db): Promise<OperationRow | undefined> {
    const rows = await queryRows<OperationRow>(
      db,
      `SELECT event_id, transaction_id, reference, intent_type, amount, fee, currency, source_account_id, destination_account_id,
              source_user_id, source_kind, destination_user_id, destination_kind, occurred_at
         FROM orchestrator.monitored_operations WHERE reference = $1 ORDER BY occurred_at LIMIT 1`,
      [reference],
    );
    return rows[0];
  }
}
