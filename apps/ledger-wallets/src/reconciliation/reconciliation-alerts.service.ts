import { Injectable, Logger } from '@nestjs/common';
import type {
  AcknowledgeReconciliationAlertDto,
  ReconciliationAlertView,
  ReconciliationAlertsQueryDto,
  ResolveReconciliationAlertDto,
} from '@mm/contracts';
import { AppException, type ErrorCode } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { constraintName, isUniqueViolation, sqlState } from '../db/sql-errors';
import type { Reconciler } from './reconcilers';
import { ALERT_COLUMNS, ALERT_FROM, type AlertRow, alertStatus, toAlertView } from './reconciliation-views';

/** The database's refusals of a CORRECTED decision (migrations 1765600100000 and 1765600800000), as codes. */
const CHECK_CODES: Record<string, ErrorCode> = {
  CHK_reconciliation_alert_decisions_four_eyes: 'RECONCILIATION_CORRECTION_NOT_ELIGIBLE',
  CHK_reconciliation_alert_decisions_correction_time: 'RECONCILIATION_CORRECTION_PREDATES_ALERT',
  CHK_reconciliation_alert_decisions_correction_fit: 'RECONCILIATION_CORRECTION_MISMATCH',
};

/**
 * What the fix of an alert moves on the trust account, signed as the bank sees it (positive: money the
 * account should receive, i.e. e-money issued through suspense): an unmatched bank line's own
 * movement, the undoing of an unmatched ledger movement, and for a gap (bank − circulation) the gap
 * itself: issuing a surplus, redeeming a shortfall.
 */
export function expectedEffect(alert: Pick<AlertRow, 'kind' | 'amount' | 'evidence'>): number {
  const amount = Number(alert.amount);
  const evidence = alert.evidence as { line?: { direction?: string }; movement?: { direction?: string } };
  if (alert.kind === 'BALANCE_GAP') return amount;
  if (alert.kind === 'UNMATCHED_BANK_LINE') return evidence.line?.direction === 'CREDIT' ? amount : -amount;
  return evidence.movement?.direction === 'CREDIT' ? -amount : amount;
}

const describe = (effect: number): string => (effect === 0 ? 'nothing' : `${effect > 0 ? 'a CREDIT' : 'a DEBIT'} of ${Math.abs(effect)}`);

/**
 * The life of a reconciliation alert: OPEN, ACKNOWLEDGED by an officer, then RESOLVED either by a
 * ledger correction that went through four eyes (CORRECTED) or ACCEPTED with a note. Each step is a
 * row of its own in `reconciliation_alert_decisions` (append-only); the database refuses a step
 * twice, a resolution before the acknowledgement, a correction used twice, and a correction that
 * is not executed or was approved by its own maker, whoever writes the row.
 */
@Injectable()
export class ReconciliationAlertsService {
  private readonly logger = new Logger(ReconciliationAlertsService.name);

  constructor(private readonly db: LedgerDb) {}

  async list(query: ReconciliationAlertsQueryDto): Promise<ReconciliationAlertView[]> {
    const stage = { OPEN: 0, ACKNOWLEDGED: 1, RESOLVED: 2 }[query.status ?? 'OPEN'];
    const rows = await this.db.query<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM ${ALERT_FROM}
        WHERE ($1::uuid IS NULL OR a.run_id = $1
               OR EXISTS (SELECT 1 FROM ledger.reconciliation_alert_sightings s WHERE s.run_id = $1 AND s.alert_id = a.id))
          AND ($2::int IS NULL OR $2 = COALESCE((SELECT max(d.stage) FROM ledger.reconciliation_alert_decisions d WHERE d.alert_id = a.id), 0))
        ORDER BY a.created_at DESC, a.id LIMIT $3`,
      [query.runId ?? null, query.status ? stage : null, query.limit ?? 50],
    );
    return rows.map(toAlertView);
  }

  async get(id: string): Promise<ReconciliationAlertView> {
    return toAlertView(await this.row(id));
  }

  async acknowledge(id: string, dto: AcknowledgeReconciliationAlertDto, by: Reconciler): Promise<ReconciliationAlertView> {
    await this.row(id);
    try {
      await this.decide(id, 'ACKNOWLEDGED', null, dto.reason?.trim() || null, by);
    } catch (error) {
      if (isUniqueViolation(error, 'UQ_reconciliation_alert_decisions_stage'))
        throw new AppException('RECONCILIATION_ALERT_ALREADY_ACKNOWLEDGED');
      throw error;
    }
    return this.get(id);
  }

  async resolve(id: string, dto: ResolveReconciliationAlertDto, by: Reconciler): Promise<ReconciliationAlertView> {
    const alert = await this.row(id);
    const status = alertStatus(alert.decisions);
    if (status === 'RESOLVED') throw new AppException('RECONCILIATION_ALERT_ALREADY_RESOLVED');
    if (status === 'OPEN') throw new AppException('RECONCILIATION_ALERT_NOT_ACKNOWLEDGED');
    const correctionId = dto.resolution === 'CORRECTION' ? dto.correctionId!.toLowerCase() : null;
    if (correctionId) await this.checkCorrection(correctionId, alert);
    try {
      await this.decide(id, correctionId ? 'CORRECTED' : 'ACCEPTED', correctionId, dto.reason.trim(), by);
    } catch (error) {
      if (isUniqueViolation(error, 'UQ_reconciliation_alert_decisions_stage'))
        throw new AppException('RECONCILIATION_ALERT_ALREADY_RESOLVED');
      if (isUniqueViolation(error, 'UQ_reconciliation_alert_decisions_correction'))
        throw new AppException('RECONCILIATION_CORRECTION_ALREADY_USED');
      if (sqlState(error) === '23514') {
        const code = CHECK_CODES[constraintName(error) ?? ''];
        if (code) throw new AppException(code);
      }
      throw error;
    }
    return this.get(id);
  }

  /**
   * A correction resolves an alert when it is the fix of that difference (docs/reconciliation.md,
   * "Resolving by a correction"): executed, approved by someone other than its maker, submitted
   * after the alert was raised, and moving on the trust account exactly what the alert calls for.
   * The database checks the same (trg_reconciliation_alert_decisions_allowed); this gives the
   * officer the figures.
   */
  private async checkCorrection(id: string, alert: AlertRow): Promise<void> {
    const currency = alert.currency.trim();
    const [c] = await this.db.query<{
      status: string;
      maker_id: string;
      checker_id: string | null;
      currency: string;
      submitted_at: Date;
      used_by: string | null;
      effect: string;
    }>(
      `SELECT c.status, c.maker_id, c.checker_id, c.currency, c.submitted_at,
              (SELECT d.alert_id::text FROM ledger.reconciliation_alert_decisions d WHERE d.correction_id = c.id LIMIT 1) AS used_by,
              (SELECT COALESCE(sum(CASE WHEN l.kind = 'DEBIT' THEN l.amount ELSE -l.amount END), 0)
                 FROM ledger.ledgers l JOIN ledger.accounts a ON a.id = l.account_id JOIN ledger.wallets w ON w.id = a.wallet_id
                WHERE l.transaction_id = c.transaction_id AND a.account_type = 'suspense' AND w.owner_type = 'SYSTEM'
                  AND a.currency = $2)::text AS effect
         FROM ledger.corrections c WHERE c.id = $1`,
      [id, currency],
    );
    const refuse = (why: string) => new AppException('RECONCILIATION_CORRECTION_NOT_ELIGIBLE', `Correction ${id} ${why}`);
    if (!c) throw refuse('does not exist');
    if (c.used_by) throw new AppException('RECONCILIATION_CORRECTION_ALREADY_USED', `Correction ${id} already resolved alert ${c.used_by}`);
    if (c.status !== 'EXECUTED') throw refuse(`is ${c.status}, not EXECUTED`);
    if (!c.checker_id || c.checker_id === c.maker_id) throw refuse('was not approved by a second person');
    if (c.currency.trim() !== currency) throw refuse(`is in ${c.currency.trim()}; the alert is in ${currency}`);
    if (c.submitted_at.getTime() < alert.created_at.getTime()) {
      throw new AppException(
        'RECONCILIATION_CORRECTION_PREDATES_ALERT',
        `Correction ${id} was submitted at ${c.submitted_at.toISOString()}, before the alert was raised (${alert.created_at.toISOString()})`,
      );
    }
    const effect = Number(c.effect);
    const expected = expectedEffect(alert);
    if (effect !== expected) {
      throw new AppException(
        'RECONCILIATION_CORRECTION_MISMATCH',
        `Correction ${id} moves ${describe(effect)} on the trust account; this alert calls for ${describe(expected)}`,
      );
    }
  }

  private async decide(id: string, decision: string, correctionId: string | null, note: string | null, by: Reconciler): Promise<void> {
    await this.db.query(
      `INSERT INTO ledger.reconciliation_alert_decisions (alert_id, decision, correction_id, note, decided_by, decided_roles, caller, request_id, correlation_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [id, decision, correctionId, note, by.operator.id, by.operator.roles, by.caller, by.requestId, by.correlationId],
    );
    this.logger.log({ alertId: id, decision, correctionId, operatorId: by.operator.id }, 'reconciliation alert decided');
  }

  private async row(id: string): Promise<AlertRow> {
    const [row] = await this.db.query<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM ${ALERT_FROM} WHERE a.id = $1`, [id]);
    if (!row) throw new AppException('RECONCILIATION_ALERT_NOT_FOUND');
    return row;
  }
}
