import { Injectable, Logger } from '@nestjs/common';
import type { ReconciliationReportView, ReconciliationRunView, ReconciliationRunsQueryDto } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import { circulationAt, readFloatMovements } from './float-ledger';
import { type BankLine, type FloatMovement, matchStatement } from './matching';
import type { Reconciler } from './reconcilers';
import {
  ALERT_COLUMNS,
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

const DAY_MS = 86_400_000;
const startOf = (date: string, plusDays = 0): Date => new Date(Date.parse(`${date}T00:00:00Z`) + plusDays * DAY_MS);

/**
 * A reconciliation run: one imported statement against the ledger (docs/reconciliation.md). In one
 * REPEATABLE READ transaction, so the movements and the balances are those of one instant: the
 * platform's float movements around the statement's days are matched with its lines, the closing
 * balance is compared with the e-money in circulation at the end of the closing day, and an alert
 * is opened, with its evidence, for the gap and for every item left unmatched. The run and its
 * alerts are written in the same transaction; a run changes no money.
 */
@Injectable()
export class ReconciliationRunsService {
  private readonly logger = new Logger(ReconciliationRunsService.name);

  constructor(
    private readonly db: LedgerDb,
    private readonly settings: ReconciliationSettings,
  ) {}

  async run(statementId: string, by: Reconciler): Promise<ReconciliationRunView> {
    const tolerance = this.settings.toleranceDays;
    const run = await this.db.withSession(async (s) => {
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ');
      s.inTransaction = true;
      const statement = await s.one<StatementRow>(`SELECT ${STATEMENT_COLUMNS} FROM ledger.bank_statements WHERE id = $1`, [statementId]);
      if (!statement) throw new AppException('BANK_STATEMENT_NOT_FOUND');
      const currency = statement.currency.trim();
      const lines = (
        await s.query<BankLine & { amount: string }>(
          `SELECT line_no AS "lineNo", direction, amount::text AS amount, booking_date::text AS "bookingDate", value_date::text AS "valueDate",
                  reference, remittance
             FROM ledger.bank_statement_lines WHERE statement_id = $1 ORDER BY line_no`,
          [statementId],
        )
      ).map((l) => ({ ...l, amount: toMoney(l.amount) }));
      // Movements a run of another statement of this account paired with a bank line are that statement's.
      const [{ ids: elsewhere }] = await s.query<{ ids: string[] }>(
        `SELECT COALESCE(array_agg(DISTINCT m), '{}') AS ids
           FROM ledger.reconciliation_runs r JOIN ledger.bank_statements b ON b.id = r.statement_id,
                unnest(r.matched_transaction_ids) AS m
          WHERE b.account = $1 AND b.id <> $2`,
        [statement.account, statementId],
      );
      const [{ ids: resolutions }] = await s.query<{ ids: string[] }>(
        `SELECT COALESCE(array_agg(c.transaction_id), '{}') AS ids
           FROM ledger.reconciliation_alert_decisions d JOIN ledger.corrections c ON c.id = d.correction_id
          WHERE d.correction_id IS NOT NULL AND c.transaction_id IS NOT NULL`,
      );
      const opening = statement.opening_date;
      const closing = statement.closing_date;
      const movements = await readFloatMovements(s, currency, startOf(opening, -tolerance), startOf(closing, 1 + tolerance), elsewhere);
      const inPeriod = (m: FloatMovement) => m.completedAt.slice(0, 10) >= opening && m.completedAt.slice(0, 10) <= closing;
      const result = matchStatement(lines, movements, tolerance, inPeriod, new Set(resolutions));
      const cutoff = startOf(closing, 1);
      const { circulation, platformAccounts } = await circulationAt(s, currency, cutoff);
      const bankClosing = toMoney(statement.closing_balance);
      const difference = bankClosing - circulation;
      const circulationDetail = { cutoff: cutoff.toISOString(), circulation, platformAccounts };

      const alerts: { kind: string; amount: number; evidence: Record<string, unknown> }[] = [];
      const about = { statementRef: statement.statement_ref, account: statement.account, businessDate: closing };
      if (difference !== 0) {
        alerts.push({
          kind: 'BALANCE_GAP',
          amount: difference,
          evidence: { ...about, bankClosing, difference, ...circulationDetail },
        });
      }
      for (const line of result.unmatchedBankLines)
        alerts.push({ kind: 'UNMATCHED_BANK_LINE', amount: line.amount, evidence: { ...about, line } });
      for (const movement of result.unmatchedMovements) {
        alerts.push({ kind: 'UNMATCHED_LEDGER_MOVEMENT', amount: movement.amount, evidence: { ...about, movement } });
      }
      const stored: RunResult = {
        circulationDetail,
        matches: result.matches,
        unmatchedBankLines: result.unmatchedBankLines,
        unmatchedMovements: result.unmatchedMovements,
        resolutionCorrections: result.setAside,
      };
      const matchedIds = result.matches.filter((m) => m.bankLines.length > 0).flatMap((m) => m.movements.map((mv) => mv.transactionId));
      const [row] = await s.query<RunRow>(
        `WITH r AS (
           INSERT INTO ledger.reconciliation_runs (statement_id, currency, business_date, bank_closing, circulation, difference, status,
             matched_count, unmatched_bank_count, unmatched_ledger_count, tolerance_days, matched_transaction_ids, result,
             run_by, run_roles, caller, request_id, correlation_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::uuid[], $13::jsonb, $14, $15, $16, $17, $18) RETURNING *),
         a AS (
           INSERT INTO ledger.reconciliation_alerts (run_id, kind, currency, amount, evidence)
           SELECT r.id, x.kind, $2, x.amount, x.evidence FROM r CROSS JOIN jsonb_to_recordset($19::jsonb) AS x(kind text, amount bigint, evidence jsonb)
           RETURNING id, created_at)
         SELECT r.id, r.statement_id, r.currency, r.business_date::text, r.bank_closing::text, r.circulation::text, r.difference::text,
                r.status, r.matched_count, r.unmatched_bank_count, r.unmatched_ledger_count, r.tolerance_days, r.result, r.run_by, r.created_at,
                ARRAY(SELECT id FROM a ORDER BY created_at, id) AS alert_ids
           FROM r`,
        [
          statementId,
          currency,
          closing,
          bankClosing,
          circulation,
          difference,
          alerts.length === 0 ? 'BALANCED' : 'DIFFERENCES',
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
          JSON.stringify(alerts),
        ],
      );
      await s.exec('COMMIT');
      s.inTransaction = false;
      return row;
    });
    this.logger.log(
      {
        runId: run.id,
        statementId,
        status: run.status,
        difference: run.difference,
        alerts: run.alert_ids.length,
        operatorId: by.operator.id,
      },
      'reconciliation run recorded',
    );
    return toRunView(run);
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

  /** The run with its statement, every match and unmatched item, and its alerts as they stand now. */
  async report(id: string): Promise<ReconciliationReportView> {
    const row = await this.row(id);
    const [statement] = await this.db.query<StatementRow>(`SELECT ${STATEMENT_COLUMNS} FROM ledger.bank_statements WHERE id = $1`, [
      row.statement_id,
    ]);
    const alerts = await this.db.query<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM ledger.reconciliation_alerts a JOIN ledger.reconciliation_runs r ON r.id = a.run_id
        WHERE a.run_id = $1 ORDER BY a.created_at, a.id`,
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
