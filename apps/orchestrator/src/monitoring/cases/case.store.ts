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

  /**
   * The case's version: how many history events it has. Every change of a case (an alert joining
   * it included) appends one event while holding the case row, so the count moves exactly when
   * what an officer sees moves; read after `FOR UPDATE`, it is the version being decided.
   */
  async version(caseId: string, db: RawQueryable = this.db): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      db,
      `SELECT count(*)::int AS n FROM orchestrator.monitoring_case_events WHERE case_id = $1`,
      [caseId],
    );
    return row.n;
  }

  /** Name, phone and ledger accounts of the person, as the orchestrator's identities hold them. */
  async identity(userId: string, db: RawQueryable = this.db): Promise<{ name: string | null; phone: string | null; accountIds: string[] }> {
    const [row] = await queryRows<{ name: string | null; phone: string | null; account_ids: string[] | null }>(
      db,
      `SELECT p.first_name || ' ' || p.last_name AS name, c.phone,
              (SELECT array_agg(a.account_id::text ORDER BY a.currency, a.purpose) FROM orchestrator.ledger_accounts a WHERE a.customer_id = c.id) AS account_ids
         FROM orchestrator.customers c LEFT JOIN orchestrator.profiles p ON p.customer_id = c.id
        WHERE c.user_id = $1`,
      [userId],
    );
    return { name: row?.name ?? null, phone: row?.phone ?? null, accountIds: row?.account_ids ?? [] };
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

  /**
   * One page of the case's operations (those its alerts name and those attached as evidence),
   * oldest first, after the keyset `after` (occurred_at, transaction_id), with how many there are.
   */
  async operationPage(
    caseId: string,
    limit: number,
    after: [string, string] | null = null,
    db: RawQueryable = this.db,
  ): Promise<{ rows: OperationRow[]; total: number }> {
    const ids = `SELECT unnest(a.transaction_ids) FROM orchestrator.monitoring_alerts a WHERE a.case_id = $1
                 UNION
                 SELECT (e.details->>'transactionId')::uuid FROM orchestrator.monitoring_case_events e
                  WHERE e.case_id = $1 AND e.kind = 'EVIDENCE' AND e.details->>'kind' = 'TRANSACTION'`;
    // keyed on the time to the millisecond, as the cursor carries it (an ISO instant)
    const rows = await queryRows<OperationRow>(
      db,
      `SELECT DISTINCT ON (date_trunc('milliseconds', occurred_at), transaction_id) event_id, transaction_id, reference, intent_type,
              amount, fee, currency, source_account_id, destination_account_id, source_user_id, source_kind, destination_user_id,
              destination_kind, occurred_at
         FROM orchestrator.monitored_operations
        WHERE transaction_id IN (${ids})
          AND ($2::timestamptz IS NULL OR (date_trunc('milliseconds', occurred_at), transaction_id) > ($2::timestamptz, $3::uuid))
        ORDER BY date_trunc('milliseconds', occurred_at), transaction_id, event_id LIMIT $4`,
      [caseId, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    const [{ total }] = await queryRows<{ total: number }>(
      db,
      `SELECT count(DISTINCT transaction_id)::int AS total FROM orchestrator.monitored_operations WHERE transaction_id IN (${ids})`,
      [caseId],
    );
    return { rows, total };
  }

  /** The first `limit` alerts of the case, oldest first, and how many it has. */
  async alertPage(caseId: string, limit: number, db: RawQueryable = this.db): Promise<{ rows: AlertRow[]; total: number }> {
    const rows = await queryRows<AlertRow>(
      db,
      `SELECT ${ALERT_COLUMNS} FROM orchestrator.monitoring_alerts a WHERE a.case_id = $1 ORDER BY a.raised_at, a.id LIMIT $2`,
      [caseId, limit],
    );
    const [{ total }] = await queryRows<{ total: number }>(
      db,
      `SELECT count(*)::int AS total FROM orchestrator.monitoring_alerts WHERE case_id = $1`,
      [caseId],
    );
    return { rows, total };
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
