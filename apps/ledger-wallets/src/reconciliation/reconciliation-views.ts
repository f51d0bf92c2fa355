import type {
  BankStatementView,
  ReconciliationAlertView,
  ReconciliationDecisionView,
  ReconciliationRunView,
  ReconciliationAlertStatus,
} from '@mm/contracts';
import { iso, toMoney } from '../db/money';

const day = (value: Date | string): string => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10));

export const STATEMENT_COLUMNS = `id, account, currency, statement_ref, format, content_hash, opening_balance::text, opening_date::text,
  closing_balance::text, closing_date::text, utc_offset, line_count, imported_by, imported_at`;

export interface StatementRow {
  id: string;
  account: string;
  currency: string;
  statement_ref: string;
  format: string;
  content_hash: string;
  opening_balance: string;
  opening_date: string;
  closing_balance: string;
  closing_date: string;
  /** the bank's day offset the statement was imported with */
  utc_offset: string;
  line_count: number;
  imported_by: string;
  imported_at: Date;
}

export function toStatementView(r: StatementRow): BankStatementView {
  return {
    id: r.id,
    account: r.account,
    currency: r.currency.trim(),
    statementRef: r.statement_ref,
    format: r.format,
    contentHash: r.content_hash.trim(),
    openingBalance: toMoney(r.opening_balance),
    openingDate: day(r.opening_date),
    closingBalance: toMoney(r.closing_balance),
    closingDate: day(r.closing_date),
    utcOffset: r.utc_offset,
    lineCount: r.line_count,
    importedBy: r.imported_by,
    importedAt: iso(r.imported_at)!,
  };
}

export const RUN_COLUMNS = `r.id, r.statement_id, r.currency, r.business_date::text, r.bank_closing::text, r.circulation::text, r.difference::text,
  r.status, r.matched_count, r.unmatched_bank_count, r.unmatched_ledger_count, r.tolerance_days, r.result, r.run_by, r.created_at,
  ARRAY(SELECT a.id FROM ledger.reconciliation_alerts a WHERE a.run_id = r.id ORDER BY a.created_at, a.id) AS alert_ids,
  ARRAY(SELECT s.alert_id FROM ledger.reconciliation_alert_sightings s JOIN ledger.reconciliation_alerts a ON a.id = s.alert_id
         WHERE s.run_id = r.id ORDER BY a.created_at, a.id) AS seen_alert_ids`;

export interface RunRow {
  id: string;
  statement_id: string;
  currency: string;
  business_date: string;
  bank_closing: string;
  circulation: string;
  difference: string;
  status: string;
  matched_count: number;
  unmatched_bank_count: number;
  unmatched_ledger_count: number;
  tolerance_days: number;
  result: RunResult;
  run_by: string;
  created_at: Date;
  alert_ids: string[];
  seen_alert_ids: string[];
}

/** What a run keeps in `result`: the report's detail, as computed then. */
export interface RunResult {
  circulationDetail: ReconciliationRunView['circulationDetail'];
  matches: unknown[];
  unmatchedBankLines: unknown[];
  unmatchedMovements: unknown[];
  resolutionCorrections: unknown[];
}

export function toRunView(r: RunRow): ReconciliationRunView {
  return {
    id: r.id,
    statementId: r.statement_id,
    currency: r.currency.trim(),
    businessDate: day(r.business_date),
    bankClosing: toMoney(r.bank_closing),
    circulation: toMoney(r.circulation),
    difference: toMoney(r.difference),
    status: r.status,
    matchedCount: r.matched_count,
    unmatchedBankCount: r.unmatched_bank_count,
    unmatchedLedgerCount: r.unmatched_ledger_count,
    toleranceDays: r.tolerance_days,
    circulationDetail: r.result.circulationDetail,
    alertIds: r.alert_ids,
    seenAlertIds: r.seen_alert_ids,
    runBy: r.run_by,
    createdAt: iso(r.created_at)!,
  };
}

export const ALERT_COLUMNS = `a.id, a.run_id, r.statement_id, a.kind, a.currency, a.amount::text, a.evidence, a.created_at,
  k.evidence_key, k.occurrence,
  ARRAY(SELECT s.run_id FROM ledger.reconciliation_alert_sightings s WHERE s.alert_id = a.id ORDER BY s.created_at, s.run_id) AS seen_by_run_ids,
  COALESCE((SELECT json_agg(json_build_object('decision', d.decision, 'correctionId', d.correction_id, 'note', d.note,
              'decidedBy', d.decided_by, 'decidedRoles', d.decided_roles, 'decidedAt', d.created_at) ORDER BY d.seq)
            FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = a.id), '[]'::json) AS decisions`;

/** The alerts with their run and their difference key: `FROM ${ALERT_FROM}`. */
export const ALERT_FROM = `ledger.reconciliation_alerts a JOIN ledger.reconciliation_runs r ON r.id = a.run_id
  JOIN ledger.reconciliation_alert_keys k ON k.alert_id = a.id`;

export interface AlertRow {
  id: string;
  run_id: string;
  statement_id: string;
  kind: string;
  currency: string;
  amount: string;
  evidence: Record<string, unknown>;
  created_at: Date;
  evidence_key: string;
  occurrence: number;
  seen_by_run_ids: string[];
  decisions: (Omit<ReconciliationDecisionView, 'decidedAt'> & { decidedAt: string })[];
}

/** OPEN without a decision, ACKNOWLEDGED after the first, RESOLVED once corrected or accepted. */
export function alertStatus(decisions: { decision: string }[]): ReconciliationAlertStatus {
  if (decisions.some((d) => d.decision !== 'ACKNOWLEDGED')) return 'RESOLVED';
  return decisions.length > 0 ? 'ACKNOWLEDGED' : 'OPEN';
}

export function toAlertView(r: AlertRow): ReconciliationAlertView {
  return {
    id: r.id,
    runId: r.run_id,
    statementId: r.statement_id,
    kind: r.kind,
    currency: r.currency.trim(),
    amount: toMoney(r.amount),
    status: alertStatus(r.decisions),
    evidence: r.evidence,
    evidenceKey: r.evidence_key,
    occurrence: r.occurrence,
    seenByRunIds: r.seen_by_run_ids,
    decisions: r.decisions.map((d) => ({ ...d, decidedAt: iso(d.decidedAt)! })),
    createdAt: iso(r.created_at)!,
  };
}
