import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { SUPPORTED_CURRENCIES } from './services';

/*
 * Float reconciliation against the trust bank account (docs/reconciliation.md): the request bodies
 * and answers of the ledger's `/v1/internal/reconciliation/*` routes, which the orchestrator's
 * `/api/v1/compliance/reconciliation/*` routes validate alike and relay as the ledger wrote them.
 * Amounts are integers in the currency's smallest unit (XAF and XOF have no minor unit).
 */

export const BANK_STATEMENT_FORMATS = ['CAMT053', 'CSV'] as const;
export type BankStatementFormat = (typeof BANK_STATEMENT_FORMATS)[number];
export const BANK_DIRECTIONS = ['CREDIT', 'DEBIT'] as const;
export const RECONCILIATION_RUN_STATUSES = ['BALANCED', 'DIFFERENCES'] as const;
export const RECONCILIATION_ALERT_KINDS = ['BALANCE_GAP', 'UNMATCHED_BANK_LINE', 'UNMATCHED_LEDGER_MOVEMENT'] as const;
export type ReconciliationAlertKind = (typeof RECONCILIATION_ALERT_KINDS)[number];
export const RECONCILIATION_ALERT_STATUSES = ['OPEN', 'ACKNOWLEDGED', 'RESOLVED'] as const;
export type ReconciliationAlertStatus = (typeof RECONCILIATION_ALERT_STATUSES)[number];
export const RECONCILIATION_DECISIONS = ['ACKNOWLEDGED', 'CORRECTED', 'ACCEPTED'] as const;
export const RECONCILIATION_RESOLUTIONS = ['CORRECTION', 'ACCEPTED'] as const;
export const RECONCILIATION_MATCH_RULES = ['CORRECTED', 'REFERENCE', 'DATE', 'GROUPED_LEDGER', 'GROUPED_BANK', 'REVERSED'] as const;
/** The largest statement accepted, in characters: below the gateway's 1 MiB body limit (BODY_LIMIT_BYTES) with room for the JSON around it. */
export const BANK_STATEMENT_MAX_CHARS = 1_000_000;

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export class ImportBankStatementDto {
  @ApiProperty({
    enum: BANK_STATEMENT_FORMATS,
    example: 'CAMT053',
    description: 'ISO 20022 camt.053 XML, or the CSV of docs/reconciliation.md',
  })
  @IsIn(BANK_STATEMENT_FORMATS)
  format: BankStatementFormat;

  @ApiProperty({
    minLength: 1,
    maxLength: BANK_STATEMENT_MAX_CHARS,
    example:
      'statement_id,account,currency,record,booking_date,value_date,amount,direction,reference,remittance\n' +
      'STMT-2026-11-20,CM2110005000010123456789012,XAF,OPENING,2026-11-20,,0,CREDIT,,\n' +
      'STMT-2026-11-20,CM2110005000010123456789012,XAF,ENTRY,2026-11-20,2026-11-20,500000,CREDIT,BNK-0001,Float MMPTX261120ABC1234\n' +
      'STMT-2026-11-20,CM2110005000010123456789012,XAF,CLOSING,2026-11-20,,500000,CREDIT,,\n',
    description: 'the statement file as text (UTF-8), as the bank delivered it',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(BANK_STATEMENT_MAX_CHARS)
  content: string;
}

export class RunReconciliationDto {
  @ApiProperty({ format: 'uuid', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', description: 'the imported statement to reconcile' })
  @IsUUID()
  statementId: string;
}

export class AcknowledgeReconciliationAlertDto {
  @ApiPropertyOptional({
    maxLength: 1000,
    example: 'Looking into it with the bank',
    description: 'optional note kept with the acknowledgement',
  })
  @OptionalField()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class ResolveReconciliationAlertDto {
  @ApiProperty({
    enum: RECONCILIATION_RESOLUTIONS,
    example: 'CORRECTION',
    description:
      'CORRECTION: an executed ledger correction (four eyes) fixed it, named by correctionId; ACCEPTED: the difference is explained, in reason',
  })
  @IsIn(RECONCILIATION_RESOLUTIONS)
  resolution: (typeof RECONCILIATION_RESOLUTIONS)[number];

  @ApiPropertyOptional({
    format: 'uuid',
    example: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    description: 'CORRECTION only (required there): the ledger correction, executed and approved by someone other than its maker',
  })
  @ValidateIf((o: ResolveReconciliationAlertDto) => o.resolution === 'CORRECTION' || o.correctionId !== undefined)
  @IsUUID()
  correctionId?: string;

  @ApiProperty({
    minLength: 3,
    maxLength: 1000,
    example: 'Timing: the bank booked the deposit on the next business day (statement of 21 Nov, line 3)',
    description: 'the note kept with the resolution',
  })
  @IsString()
  @MinLength(3)
  @MaxLength(1000)
  reason: string;
}

export class ReconciliationListQueryDto {
  @ApiPropertyOptional({ description: 'how many to list, newest first', minimum: 1, maximum: 200, default: 50, example: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class ReconciliationRunsQueryDto extends ReconciliationListQueryDto {
  @ApiPropertyOptional({ format: 'uuid', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', description: 'only the runs of this statement' })
  @OptionalField()
  @IsUUID()
  statementId?: string;
}

export class ReconciliationAlertsQueryDto extends ReconciliationListQueryDto {
  @ApiPropertyOptional({ enum: RECONCILIATION_ALERT_STATUSES, example: 'OPEN' })
  @OptionalField()
  @IsIn(RECONCILIATION_ALERT_STATUSES)
  status?: ReconciliationAlertStatus;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d',
    description: 'only the alerts this run opened or saw again',
  })
  @OptionalField()
  @IsUUID()
  runId?: string;
}

export class ReconciliationReportQueryDto {
  @ApiPropertyOptional({
    enum: ['json', 'csv'],
    default: 'json',
    example: 'csv',
    description: 'csv: one row per matched or unmatched item',
  })
  @OptionalField()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}

// ---------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------

export class BankStatementView {
  @ApiProperty({ format: 'uuid', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ example: 'CM2110005000010123456789012', description: 'the trust account (IBAN or other id, no spaces)' })
  account: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'STMT-2026-11-20', description: "the bank's id of the statement (camt.053 Stmt/Id)" })
  statementRef: string;

  @ApiProperty({ enum: BANK_STATEMENT_FORMATS, example: 'CAMT053' })
  format: string;

  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 of the content as imported',
  })
  contentHash: string;

  @ApiProperty({ type: 'integer', example: 1_000_000, description: 'signed: negative for a debit balance' })
  openingBalance: number;

  @ApiProperty({ format: 'date', example: '2026-11-20' })
  openingDate: string;

  @ApiProperty({ type: 'integer', example: 1_500_000, description: 'signed: negative for a debit balance' })
  closingBalance: number;

  @ApiProperty({ format: 'date', example: '2026-11-20' })
  closingDate: string;

  @ApiProperty({
    example: '+01:00',
    description:
      "the UTC offset of the bank's days, from LEDGER_TRUST_ACCOUNTS at import: the statement's dates, cutoff and matching use it",
  })
  utcOffset: string;

  @ApiProperty({ type: 'integer', example: 12 })
  lineCount: number;

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the operator who imported it' })
  importedBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T07:30:00.000Z' })
  importedAt: string;
}

export class BankLineView {
  @ApiProperty({ type: 'integer', example: 3, description: 'position in the statement, from 1' })
  lineNo: number;

  @ApiProperty({ enum: BANK_DIRECTIONS, example: 'CREDIT', description: "from the trust account's side: CREDIT money in" })
  direction: string;

  @ApiProperty({ type: 'integer', example: 500_000 })
  amount: number;

  @ApiProperty({ format: 'date', example: '2026-11-20' })
  bookingDate: string;

  @ApiProperty({ type: 'string', format: 'date', nullable: true, example: '2026-11-20' })
  valueDate: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'BNK-0001' })
  reference: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Float agent AG00412345 MMPTX261120ABC1234' })
  remittance: string | null;
}

export class FloatMovementView {
  @ApiProperty({ format: 'uuid', example: '7c6b5a4d-3e2f-4a1b-8c0d-9e8f7a6b5c4d' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX261120ABC1234' })
  referenceId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-20T09:12:00.000Z' })
  completedAt: string;

  @ApiProperty({
    format: 'date',
    example: '2026-11-20',
    description: 'the business day of completedAt in West Africa Time (UTC+01:00): the day compared with bank booking dates',
  })
  businessDay: string;

  @ApiProperty({
    enum: BANK_DIRECTIONS,
    example: 'CREDIT',
    description: 'the bank movement it calls for: CREDIT when e-money was issued (money should have come in), DEBIT when it was redeemed',
  })
  direction: string;

  @ApiProperty({ type: 'integer', example: 500_000 })
  amount: number;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    example: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    description: 'the correction that wrote it, if any',
  })
  correctionId: string | null;

  @ApiProperty({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c', description: 'the holder account credited or debited' })
  accountId: string;

  @ApiProperty({ example: 'agent' })
  accountType: string;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    example: null,
    description: 'the transaction this one reverses, if it is a reversal',
  })
  reversalOf: string | null;
}

export class ReconciliationMatchView {
  @ApiProperty({
    enum: RECONCILIATION_MATCH_RULES,
    example: 'REFERENCE',
    description: 'the rule that matched (docs/reconciliation.md, "Matching rules")',
  })
  rule: string;

  @ApiProperty({ type: [BankLineView], description: 'the bank lines (none for REVERSED)' })
  bankLines: BankLineView[];

  @ApiProperty({ type: [FloatMovementView] })
  movements: FloatMovementView[];
}

export class CirculationView {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T23:00:00.000Z',
    description: "the end of the statement's closing day in West Africa Time (UTC+01:00): entries before it count",
  })
  cutoff: string;

  @ApiProperty({
    type: 'integer',
    example: 1_500_000,
    description: 'e-money owed to holders at the cutoff: minus the sum of the platform accounts below',
  })
  circulation: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { suspense: -1_500_000, treasury: 0, fee_collection: 0, agent_commission: 0, black: 0 },
    description: "each platform (SYSTEM wallet) account's balance at the cutoff, by account type",
  })
  platformAccounts: Record<string, number>;
}

export class ReconciliationRunView {
  @ApiProperty({ format: 'uuid', example: '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' })
  statementId: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ format: 'date', example: '2026-11-20', description: "the statement's closing date, a business day in West Africa Time" })
  businessDate: string;

  @ApiProperty({ type: 'integer', example: 1_500_000, description: "the statement's closing balance" })
  bankClosing: number;

  @ApiProperty({ type: 'integer', example: 1_500_000, description: 'the e-money in circulation at the end of businessDate' })
  circulation: number;

  @ApiProperty({
    type: 'integer',
    example: 0,
    description: 'bankClosing − circulation: positive, more money in the bank than e-money owed',
  })
  difference: number;

  @ApiProperty({ enum: RECONCILIATION_RUN_STATUSES, example: 'BALANCED', description: 'BALANCED: no difference and nothing unmatched' })
  status: string;

  @ApiProperty({ type: 'integer', example: 4 })
  matchedCount: number;

  @ApiProperty({ type: 'integer', example: 0 })
  unmatchedBankCount: number;

  @ApiProperty({ type: 'integer', example: 0 })
  unmatchedLedgerCount: number;

  @ApiProperty({ type: 'integer', example: 2, description: 'RECON_DATE_TOLERANCE_DAYS when it ran' })
  toleranceDays: number;

  @ApiProperty({ type: CirculationView })
  circulationDetail: CirculationView;

  @ApiProperty({ type: [String], format: 'uuid', example: ['0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a'], description: 'the alerts it opened' })
  alertIds: string[];

  @ApiProperty({
    type: [String],
    format: 'uuid',
    example: [],
    description: 'alerts of earlier runs, not resolved yet, about differences this run found again (it opened none for them)',
  })
  seenAlertIds: string[];

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the operator who ran it' })
  runBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T07:31:00.000Z' })
  createdAt: string;
}

export class ReconciliationDecisionView {
  @ApiProperty({ enum: RECONCILIATION_DECISIONS, example: 'ACKNOWLEDGED' })
  decision: string;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, example: null, description: 'CORRECTED: the correction that fixed it' })
  correctionId: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Looking into it with the bank' })
  note: string | null;

  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  decidedBy: string;

  @ApiProperty({ type: [String], example: ['COMPLIANCE'] })
  decidedRoles: string[];

  @ApiProperty({ format: 'date-time', example: '2026-11-21T08:00:00.000Z' })
  decidedAt: string;
}

export class ReconciliationAlertView {
  @ApiProperty({ format: 'uuid', example: '0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d', description: 'the run that opened it' })
  runId: string;

  @ApiProperty({ format: 'uuid', example: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' })
  statementId: string;

  @ApiProperty({ enum: RECONCILIATION_ALERT_KINDS, example: 'UNMATCHED_LEDGER_MOVEMENT' })
  kind: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({
    type: 'integer',
    example: 500_000,
    description: "BALANCE_GAP: the signed difference (bank − circulation); otherwise the item's amount",
  })
  amount: number;

  @ApiProperty({
    enum: RECONCILIATION_ALERT_STATUSES,
    example: 'OPEN',
    description: 'from the decisions: OPEN, then ACKNOWLEDGED, then RESOLVED',
  })
  status: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      statementRef: 'STMT-2026-11-20',
      movement: {
        transactionId: '7c6b5a4d-3e2f-4a1b-8c0d-9e8f7a6b5c4d',
        referenceId: 'MMPTX261120ABC1234',
        amount: 500_000,
        direction: 'CREDIT',
      },
    },
    description: 'what the run saw: the bank line, the ledger movement, or the balances and the platform accounts behind the circulation',
  })
  evidence: Record<string, unknown>;

  @ApiProperty({
    example: 'movement:7c6b5a4d-3e2f-4a1b-8c0d-9e8f7a6b5c4d',
    description:
      'which difference it is, with its statement and kind: line:<bank line no>, movement:<ledger transaction id> or gap:<signed difference>',
  })
  evidenceKey: string;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'the same difference alerted before and resolved, then found again, gets a new alert: 2, 3…',
  })
  occurrence: number;

  @ApiProperty({
    type: [String],
    format: 'uuid',
    example: [],
    description: 'later runs that found the difference again while this alert was not resolved, oldest first',
  })
  seenByRunIds: string[];

  @ApiProperty({ type: [ReconciliationDecisionView], description: 'every step, oldest first' })
  decisions: ReconciliationDecisionView[];

  @ApiProperty({ format: 'date-time', example: '2026-11-21T07:31:00.000Z' })
  createdAt: string;
}

export class ReconciliationReportView {
  @ApiProperty({ type: ReconciliationRunView })
  run: ReconciliationRunView;

  @ApiProperty({ type: BankStatementView })
  statement: BankStatementView;

  @ApiProperty({ type: [ReconciliationMatchView] })
  matches: ReconciliationMatchView[];

  @ApiProperty({ type: [BankLineView] })
  unmatchedBankLines: BankLineView[];

  @ApiProperty({
    type: [FloatMovementView],
    description: "the platform's float movements of the statement's days that no bank line explains",
  })
  unmatchedMovements: FloatMovementView[];

  @ApiProperty({
    type: [FloatMovementView],
    description:
      'corrections that resolved a movement or gap alert and reverse nothing in view: not bank movements, left out of the matching',
  })
  resolutionCorrections: FloatMovementView[];

  @ApiProperty({ type: [ReconciliationAlertView], description: 'the alerts the run opened and those it saw again' })
  alerts: ReconciliationAlertView[];
}

// ---------------------------------------------------------------------------------------------
// The report as CSV (docs/reconciliation.md, "Report")
// ---------------------------------------------------------------------------------------------

export const RECONCILIATION_CSV_COLUMNS = [
  'item',
  'match_no',
  'rule',
  'side',
  'direction',
  'amount',
  'currency',
  'date',
  'bank_line_no',
  'bank_reference',
  'bank_remittance',
  'transaction_id',
  'reference_id',
  'correction_id',
] as const;

/** A cell as RFC 4180 wants it, and never read as a formula by a spreadsheet (a leading = + - @ is quoted behind an apostrophe). */
function cell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * One row per bank line and per ledger movement of the run: MATCHED (grouped by match_no, with the
 * rule), UNMATCHED (either side) and RESOLUTION (corrections set aside). Amounts are integers in
 * the smallest unit; CRLF line ends; the same run gives the same bytes.
 */
export function reconciliationReportCsv(report: ReconciliationReportView): string {
  const currency = report.run.currency;
  const rows: string[] = [RECONCILIATION_CSV_COLUMNS.join(',')];
  const bank = (item: string, matchNo: number | null, rule: string | null, l: BankLineView) => [
    item,
    matchNo,
    rule,
    'BANK',
    l.direction,
    l.amount,
    currency,
    l.bookingDate,
    l.lineNo,
    l.reference,
    l.remittance,
    null,
    null,
    null,
  ];
  const ledger = (item: string, matchNo: number | null, rule: string | null, m: FloatMovementView) => [
    item,
    matchNo,
    rule,
    'LEDGER',
    m.direction,
    m.amount,
    currency,
    m.completedAt,
    null,
    null,
    null,
    m.transactionId,
    m.referenceId,
    m.correctionId,
  ];
  report.matches.forEach((match, i) => {
    for (const l of match.bankLines)
      rows.push(
        bank('MATCHED', i + 1, match.rule, l)
          .map(cell)
          .join(','),
      );
    for (const m of match.movements)
      rows.push(
        ledger('MATCHED', i + 1, match.rule, m)
          .map(cell)
          .join(','),
      );
  });
  for (const l of report.unmatchedBankLines) rows.push(bank('UNMATCHED', null, null, l).map(cell).join(','));
  for (const m of report.unmatchedMovements) rows.push(ledger('UNMATCHED', null, null, m).map(cell).join(','));
  for (const m of report.resolutionCorrections) rows.push(ledger('RESOLUTION', null, null, m).map(cell).join(','));
  return `${rows.join('\r\n')}\r\n`;
}
