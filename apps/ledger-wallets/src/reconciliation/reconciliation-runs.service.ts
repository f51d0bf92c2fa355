import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  type ReconciliationReportView,
  type ReconciliationRunView,
  type ReconciliationRunsQueryDto,
  addCalendarDays,
  businessDayBounds,
  isDayOver,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import type { DbSession } from '../db/db-session';
import { LedgerDb } from '../db/ledger-db.service';
import { stringLockKey } from '../db/lock-keys';
import { toMoney } from '../db/money';
import { isUniqueViolation } from '../db/sql-errors';
import { circulationAt, readFloatMovements } from './float-ledger';
import { type BankLine, type FloatMovement, type Resolutions, matchStatement } from './matching';
import type { Reconciler } from './reconcilers';
import {
  ALERT_COLUMNS,
  ALERT_FROM,
  type AlertRow,
  RUN_COLUMNS,
  type RunResult,
  type RunRow,
  STATEMENT_COLUMNS,
  type StatementRow,
  toAlertView,
  toRunView,
  toStatementView,
} from './reconciliation-views';
import { ReconciliationSettings } from './trust-accounts';

/** A difference a run found: what an alert is about, and its identity among the statement's alerts. */
interface Difference {
  kind: 'BALANCE_GAP' | 'UNMATCHED_BANK_LINE' | 'UNMATCHED_LEDGER_MOVEMENT';
  /** `gap:<signed difference>`, `line:<line no>` or `movement:<ledger transaction id>` */
  evidenceKey: string;
  amount: number;
  evidence: Record<string, unknown>;
}

/**
 * A reconciliation run: one imported statement against the ledger (docs/reconciliation.md). In one
 * REPEATABLE READ transaction, so the movements and the balances are those of one instant: the
 * platform's float movements around the statement's business days are matched with its lines, the
 * closing balance is compared with the e-money in circulation at the end of the closing day (West
 * Africa Time, `businessDayBounds`), and every difference gets an alert with its evidence, unless
 * an alert of an earlier run about the same difference is still unresolved: the run then records
 * that it saw that alert again. The run and its alerts are written in the same transaction; a run
 * changes no money.
 */
@Injectable()
export class ReconciliationRunsService {
  private readonly logger = new Logger(ReconciliationRunsService.name);

  constructor(
    private readonly db: LedgerDb,
    private readonly settings: ReconciliationSettings,
  ) {}

  async run(statementId: string, by: Reconciler): Promise<ReconciliationRunView> {
    const { row, opened, seen } = await this.db.withSession(async (s) => {
      const statement = await s.one<StatementRow>(`SELECT ${STATEMENT_COLUMNS} FROM ledger.bank_statements WHERE id = $1`, [statementId]);
      if (!statement) throw new AppException('BANK_STATEMENT_NOT_FOUND');
      // The circulation is taken at the end of the closing day: before that instant it is not final.
      if (!isDayOver(statement.closing_date, this.settings.now(), statement.utc_offset)) {
        throw new AppException(
          'RECONCILIATION_DAY_NOT_OVER',
          `Statement ${statement.statement_ref} closes on ${statement.closing_date}, which ends at ${businessDayBounds(statement.closing_date, statement.utc_offset).to}`,
        );
      }
      // One run per trust account at a time, and the lock is held before the snapshot is taken (a
      // session lock, released when the session ends): a run sees every alert and every pairing the
      // previous one committed, so it neither alerts a difference twice nor pairs a movement that
      // a run of the neighbouring statement just paired.
      const lock = stringLockKey(`reconciliation-run:${statement.account}`);
      await s.query(`SELECT pg_advisory_lock($1::bigint)`, [lock.toString()]);
      s.heldLocks.push(lock);
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ');
      s.inTransaction = true;
      try {
        const result = await this.compare(s, statement, by);
        await s.exec('COMMIT');
        s.inTransaction = false;
        return result;
      } catch (error) {
        // Only a writer that skips the lock above can get here: the database kept its alert.
        if (isUniqueViolation(error, 'UQ_reconciliation_alert_keys_difference')) {
          throw new AppException('CONCURRENCY_CONFLICT', 'Another run alerted the same difference at the same time; run again');
        }
        throw error;
      }
    });
    this.logger.log(
      {
        runId: row.id,
        statementId,
        status: row.status,
        difference: row.difference,
        alertsOpened: opened,
        alertsSeenAgain: seen,
        operatorId: by.operator.id,
      },
      'reconciliation run recorded',
    );
    return toRunView(row);
  }

  private async compare(s: DbSession, statement: StatementRow, by: Reconciler): Promise<{ row: RunRow; opened: number; seen: number }> {
    const tolerance = this.settings.toleranceDays;
    const statementId = statement.id;
    const currency = statement.currency.trim();
    const lines = (
      await s.query<BankLine & { amount: string }>(
        `SELECT line_no AS "lineNo", direction, amount::text AS amount, booking_date::text AS "bookingDate", value_date::text AS "valueDate",
                reference, remittance
           FROM ledger.bank_statement_lines WHERE statement_id = $1 ORDER BY line_no`,
        [statementId],
      )
    ).map((l) => ({ ...l, amount: toMoney(l.amount) }));
    // Every date of a statement is a day of the bank's own offset (West Africa Time unless configured).
    const offset = statement.utc_offset;
    const opening = statement.opening_date;
    const closing = statement.closing_date;
    const resolutions = await this.resolutions(s, statement);
    // Movements a run of another statement of this account paired with a bank line are that statement's.
    // Such a statement's movements lie within the tolerance of its own days, so only statements that
    // come within twice the tolerance of this one can have paired a movement this run reads.
    const [{ ids: elsewhere }] = await s.query<{ ids: string[] }>(
      `SELECT COALESCE(array_agg(DISTINCT m), '{}') AS ids
         FROM ledger.reconciliation_runs r JOIN ledger.bank_statements b ON b.id = r.statement_id,
              unnest(r.matched_transaction_ids) AS m
        WHERE b.account = $1 AND b.id <> $2 AND b.closing_date >= $3::date AND b.opening_date <= $4::date`,
      [statement.account, statementId, addCalendarDays(opening, -2 * tolerance), addCalendarDays(closing, 2 * tolerance)],
    );
    const from = new Date(businessDayBounds(addCalendarDays(opening, -tolerance), offset).from);
    const to = new Date(businessDayBounds(addCalendarDays(closing, tolerance), offset).to);
    const movements = await readFloatMovements(
      s,
      currency,
      offset,
      from,
      to,
      [...elsewhere, ...resolutions.otherStatements],
      [...resolutions.lineFixes.keys()],
    );
    const inPeriod = (m: FloatMovement) => m.businessDay >= opening && m.businessDay <= closing;
    const result = matchStatement(lines, movements, tolerance, inPeriod, resolutions);
    const cutoff = new Date(businessDayBounds(closing, offset).to);
    const { circulation, platformAccounts } = await circulationAt(s, currency, cutoff);
    const bankClosing = toMoney(statement.closing_balance);
    const difference = bankClosing - circulation;
    const circulationDetail = { cutoff: cutoff.toISOString(), circulation, platformAccounts };

    const differences: Difference[] = [];
    const about = { statementRef: statement.statement_ref, account: statement.account, businessDate: closing };
    if (difference !== 0) {
      differences.push({
        kind: 'BALANCE_GAP',
        evidenceKey: `gap:${difference}`,
        amount: difference,
        evidence: { ...about, bankClosing, difference, ...circulationDetail },
      });
    }
    for (const line of result.unmatchedBankLines) {
      differences.push({
        kind: 'UNMATCHED_BANK_LINE',
        evidenceKey: `line:${line.lineNo}`,
        amount: line.amount,
        evidence: { ...about, line },
      });
    }
    for (const movement of result.unmatchedMovements) {
      differences.push({
        kind: 'UNMATCHED_LEDGER_MOVEMENT',
        evidenceKey: `movement:${movement.transactionId}`,
        amount: movement.amount,
        evidence: { ...about, movement },
      });
    }
    const { fresh, seen } = await this.sortOut(s, statement, differences);

    const stored: RunResult = {
      circulationDetail,
      matches: result.matches,
      unmatchedBankLines: result.unmatchedBankLines,
      unmatchedMovements: result.unmatchedMovements,
      resolutionCorrections: result.setAside,
    };
    const matchedIds = result.matches.filter((m) => m.bankLines.length > 0).flatMap((m) => m.movements.map((mv) => mv.transactionId));
    const [{ id: runId }] = await s.query<{ id: string }>(
      `INSERT INTO ledger.reconciliation_runs (statement_id, currency, business_date, bank_closing, circulation, difference, status,
         matched_count, unmatched_bank_count, unmatched_ledger_count, tolerance_days, matched_transaction_ids, result,
         run_by, run_roles, caller, request_id, correlation_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::uuid[], $13::jsonb, $14, $15, $16, $17, $18) RETURNING id`,
      [
        statementId,
        currency,
        closing,
        bankClosing,
        circulation,
        difference,
        differences.length === 0 ? 'BALANCED' : 'DIFFERENCES',
        result.matches.length,
        result.unmatchedBankLines.length,
        result.unmatchedMovements.length,
        tolerance,
        matchedIds,
        JSON.stringify(stored),
        by.operator.id,
        by.operator.roles,
        by.caller,
        by.requestId,
        by.correlationId,
      ],
    );
    // Separate statements, in this order: each trigger reads what the statement before wrote.
    if (fresh.length > 0) {
      const rows = JSON.stringify(fresh.map((d) => ({ ...d, id: randomUUID() })));
      await s.query(
        `INSERT INTO ledger.reconciliation_alerts (id, run_id, kind, currency, amount, evidence)
         SELECT x.id, $1, x.kind, $2, x.amount, x.evidence FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, kind text, amount bigint, evidence jsonb)`,
        [runId, currency, rows],
      );
      await s.query(
        `INSERT INTO ledger.reconciliation_alert_keys (alert_id, statement_id, kind, evidence_key, occurrence)
         SELECT x.id, $1, x.kind, x."evidenceKey", x.occurrence
           FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, kind text, "evidenceKey" text, occurrence int)`,
        [statementId, rows],
      );
    }
    if (seen.length > 0) {
      await s.query(`INSERT INTO ledger.reconciliation_alert_sightings (run_id, alert_id) SELECT $1, unnest($2::uuid[])`, [runId, seen]);
    }
    const [row] = await s.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ledger.reconciliation_runs r WHERE r.id = $1`, [runId]);
    return { row, opened: fresh.length, seen: seen.length };
  }

  /**
   * What the CORRECTED decisions of this currency say about the movements (docs/reconciliation.md,
   * "Matching rules"): a correction that resolved the alert of one of this statement's bank lines is
   * that line's movement; one that resolved a bank line of another statement belongs to that
   * statement; one that resolved a movement or gap alert moved no money at the bank.
   */
  private async resolutions(s: DbSession, statement: StatementRow): Promise<Resolutions & { otherStatements: string[] }> {
    const rows = await s.query<{ transaction_id: string; kind: string; statement_id: string; evidence_key: string }>(
      `SELECT c.transaction_id, k.kind, k.statement_id, k.evidence_key
         FROM ledger.reconciliation_alert_decisions d
         JOIN ledger.corrections c ON c.id = d.correction_id
         JOIN ledger.reconciliation_alert_keys k ON k.alert_id = d.alert_id
         JOIN ledger.reconciliation_alerts a ON a.id = d.alert_id
        WHERE d.correction_id IS NOT NULL AND c.transaction_id IS NOT NULL AND a.currency = $1`,
      [statement.currency],
    );
    const lineFixes = new Map<string, number>();
    const ledgerFixes = new Set<string>();
    const otherStatements: string[] = [];
    for (const r of rows) {
      if (r.kind !== 'UNMATCHED_BANK_LINE') ledgerFixes.add(r.transaction_id);
      else if (r.statement_id === statement.id) lineFixes.set(r.transaction_id, Number(r.evidence_key.slice('line:'.length)));
      else otherStatements.push(r.transaction_id);
    }
    return { lineFixes, ledgerFixes, otherStatements };
  }

  /**
   * Which differences get a new alert and which are already covered: a difference (same statement,
   * kind and evidence key) whose latest alert is not resolved is seen again, not alerted twice; one
   * never alerted, or whose alerts were all resolved, gets a new alert, the next occurrence.
   */
  private async sortOut(
    s: DbSession,
    statement: StatementRow,
    differences: Difference[],
  ): Promise<{ fresh: (Difference & { occurrence: number })[]; seen: string[] }> {
    const known = await s.query<{ alert_id: string; kind: string; evidence_key: string; occurrence: number; resolution: string | null }>(
      `SELECT k.alert_id, k.kind, k.evidence_key, k.occurrence,
              (SELECT d.decision FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = k.alert_id AND d.stage = 2) AS resolution
         FROM ledger.reconciliation_alert_keys k WHERE k.statement_id = $1`,
      [statement.id],
    );
    const identity = (kind: string, evidenceKey: string) => `${kind} ${evidenceKey}`;
    const latest = new Map<string, { alertId: string; occurrence: number; resolution: string | null }>();
    for (const k of known) {
      const id = identity(k.kind, k.evidence_key);
      if ((latest.get(id)?.occurrence ?? 0) < k.occurrence)
        latest.set(id, { alertId: k.alert_id, occurrence: k.occurrence, resolution: k.resolution });
    }
    const fresh: (Difference & { occurrence: number })[] = [];
    const seen: string[] = [];
    for (const d of differences) {
      const last = latest.get(identity(d.kind, d.evidenceKey));
      // Open or acknowledged: still being worked. Accepted: the officer's explanation stands for
      // that very difference. Corrected and found again: the correction did not explain it.
      const carried = !last && d.kind === 'BALANCE_GAP' ? await this.acceptedGapOfPreviousDay(s, statement, d.evidenceKey) : undefined;
      if (last && last.resolution !== 'CORRECTED') seen.push(last.alertId);
      else if (carried) seen.push(carried);
      else fresh.push({ ...d, occurrence: (last?.occurrence ?? 0) + 1 });
    }
    return { fresh, seen };
  }

  /**
   * A gap that stays the same from one statement to the next (fees not swept yet, say) is one
   * difference: when the latest run of the account's previous statement had a gap of the same
   * amount whose alert was accepted, that alert is seen again instead of a new one opened every day.
   */
  private async acceptedGapOfPreviousDay(s: DbSession, statement: StatementRow, evidenceKey: string): Promise<string | undefined> {
    const [row] = await s.query<{ id: string }>(
      `WITH prev AS (
         SELECT r.id FROM ledger.reconciliation_runs r JOIN ledger.bank_statements b ON b.id = r.statement_id
          WHERE b.account = $1 AND b.closing_date < $2::date ORDER BY b.closing_date DESC, r.created_at DESC LIMIT 1)
       SELECT a.id FROM prev, ledger.reconciliation_alerts a JOIN ledger.reconciliation_alert_keys k ON k.alert_id = a.id
        WHERE k.kind = 'BALANCE_GAP' AND k.evidence_key = $3
          AND (a.run_id = prev.id OR EXISTS (SELECT 1 FROM ledger.reconciliation_alert_sightings x WHERE x.run_id = prev.id AND x.alert_id = a.id))
          AND EXISTS (SELECT 1 FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = a.id AND d.decision = 'ACCEPTED')
        LIMIT 1`,
      [statement.account, statement.closing_date, evidenceKey],
    );
    return row?.id;
  }

  async get(id: string): Promise<ReconciliationRunView> {
    return toRunView(await this.row(id));
  }

  async list(query: ReconciliationRunsQueryDto): Promise<ReconciliationRunView[]> {
    const rows = await this.db.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ledger.reconciliation_runs r WHERE ($1::uuid IS NULL OR r.statement_id = $1)
        ORDER BY r.created_at DESC, r.id LIMIT $2`,
      [query.statementId ?? null, query.limit ?? 50],
    );
    return rows.map(toRunView);
  }

  /** The run with its statement, every match and unmatched item, and its alerts (opened or seen again) as they stand now. */
  async report(id: string): Promise<ReconciliationReportView> {
    const row = await this.row(id);
    const [statement] = await this.db.query<StatementRow>(`SELECT ${STATEMENT_COLUMNS} FROM ledger.bank_statements WHERE id = $1`, [
      row.statement_id,
    ]);
    const alerts = await this.db.query<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM ${ALERT_FROM}
        WHERE a.run_id = $1 OR a.id IN (SELECT s.alert_id FROM ledger.reconciliation_alert_sightings s WHERE s.run_id = $1)
        ORDER BY a.created_at, a.id`,
      [id],
    );
    const r = row.result;
    return {
      run: toRunView(row),
      statement: toStatementView(statement),
      matches: r.matches as ReconciliationReportView['matches'],
      unmatchedBankLines: r.unmatchedBankLines as ReconciliationReportView['unmatchedBankLines'],
      unmatchedMovements: r.unmatchedMovements as ReconciliationReportView['unmatchedMovements'],
      resolutionCorrections: r.resolutionCorrections as ReconciliationReportView['resolutionCorrections'],
      alerts: alerts.map(toAlertView),
    };
  }

  private async row(id: string): Promise<RunRow> {
    const [row] = await this.db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ledger.reconciliation_runs r WHERE r.id = $1`, [id]);
    if (!row) throw new AppException('RECONCILIATION_RUN_NOT_FOUND');
    return row;
  }
}
