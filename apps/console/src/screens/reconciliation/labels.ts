import type { components } from '../../api/schema';
import { money } from '../../ui/format';

export type Statement = components['schemas']['BankStatementView'];
export type Run = components['schemas']['ReconciliationRunView'];
export type ReconAlert = components['schemas']['ReconciliationAlertView'];
export type BankLine = components['schemas']['BankLineView'];
export type Movement = components['schemas']['FloatMovementView'];

export const ALERT_KIND_LABELS: Record<string, string> = {
  BALANCE_GAP: 'Bank balance ≠ e-money in circulation',
  UNMATCHED_BANK_LINE: 'Bank movement with no platform movement',
  UNMATCHED_LEDGER_MOVEMENT: 'Platform movement missing from the bank',
};

export const ALERT_STATUS_LABELS: Record<string, string> = {
  OPEN: 'Open',
  ACKNOWLEDGED: 'Acknowledged',
  RESOLVED: 'Resolved',
};

export const ALERT_STATUS_COLORS: Record<string, string> = { OPEN: 'red', ACKNOWLEDGED: 'orange', RESOLVED: 'green' };

export const MATCH_RULE_LABELS: Record<string, string> = {
  REFERENCE: 'one to one, by reference',
  DATE: 'one to one, by amount and date',
  GROUPED_LEDGER: 'several platform movements, one bank line',
  GROUPED_BANK: 'several bank lines, one platform movement',
  REVERSED: 'a movement and its reversal',
};

/** A nullable text field of the reconciliation answers (a line's reference, a decision's note) as text: '' for null. */
export const str = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

export const alertKind = (kind: string) => ALERT_KIND_LABELS[kind] ?? kind;

/** A signed amount with its sign shown (a difference, a debit balance). */
export function signed(amount: number, currency: string): string {
  return amount > 0 ? `+${money(amount, currency)}` : amount < 0 ? `−${money(-amount, currency)}` : money(0, currency);
}

export const bankLineText = (l: BankLine, currency: string) =>
  `line ${l.lineNo}: ${l.direction} ${money(l.amount, currency)} booked ${l.bookingDate}${str(l.reference) ? `, ${str(l.reference)}` : ''}${
    str(l.remittance) ? ` (“${str(l.remittance)}”)` : ''
  }`;

export const movementText = (m: Movement, currency: string) =>
  `${m.referenceId}: ${m.direction} ${money(m.amount, currency)} on the ${m.accountType} account, ${m.completedAt.slice(0, 10)}`;

/** What an alert's evidence says, in a sentence (the whole evidence is shown beside it). */
export function evidenceText(alert: ReconAlert): string {
  const e = alert.evidence as Record<string, unknown>;
  if (alert.kind === 'BALANCE_GAP' && typeof e.bankClosing === 'number' && typeof e.circulation === 'number')
    return `The bank closed at ${money(e.bankClosing, alert.currency)}; the e-money in circulation was ${money(
      e.circulation,
      alert.currency,
    )}: ${signed(alert.amount, alert.currency)}.`;
  if (e.line && typeof e.line === 'object') return `Bank ${bankLineText(e.line as BankLine, alert.currency)}.`;
  if (e.movement && typeof e.movement === 'object') return `Platform ${movementText(e.movement as Movement, alert.currency)}.`;
  return '';
}
