import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { SUPPORTED_CURRENCIES } from './services';
import { LedgerChainIntegrityView } from './ledger-chain';

/*
 * OpenAPI classes for the ledger's account audit report and integrity checks (docs/ledger.md
 * "Audit and the integrity job"). The ledger answers them and the orchestrator's compliance routes relay the body as the
 * ledger wrote it, so both documents use these classes and cannot drift apart. The ledger's views
 * assert at compile time that the report and the check result its services build have exactly
 * these shapes: a field added there without its documentation here fails to compile. Amounts are
 * in the currency's smallest unit: JSON integers where the value is stored on a row (the ledger keeps
 * those within ±(2^53 − 1)), decimal strings where an audit or a check sums entries or accounts (an
 * account's turnover, or a currency's total on a damaged ledger, may exceed 2^53 − 1 while every
 * balance stays within it).
 */

/** The kinds of ledger account (ledger.accounts.account_type): the holders', then the platform's technical ones. */
export const LEDGER_ACCOUNT_TYPES = [
  'customer',
  'agent',
  'merchant',
  'organisation',
  'agent_commission',
  'fee_collection',
  'treasury',
  'suspense',
  'black',
] as const;

/**
 * true when A and B are assignable both ways: the same required fields, at every level, of compatible
 * types. `const _: SameShape<Built, View> = true` ties a view class to the type a service builds.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** An integer of any size written in decimal: how a sum that may exceed 2^53 − 1 travels in JSON. */
const DECIMAL_INTEGER = '^-?(0|[1-9][0-9]*)$';
const NON_NEGATIVE_DECIMAL_INTEGER = '^(0|[1-9][0-9]*)$';

export const ACCOUNT_AUDIT_STATUSES = ['OK', 'WARNING', 'CRITICAL'] as const;
export type AccountAuditStatus = (typeof ACCOUNT_AUDIT_STATUSES)[number];

// ---------------------------------------------------------------------------------------------
// Account audit
// ---------------------------------------------------------------------------------------------

export class AuditedAccountView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' })
  walletId: string;

  @ApiProperty({ example: 'Awa Ndiaye', description: "the wallet's holder name (its owner id when none was given)" })
  holder: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({
    enum: LEDGER_ACCOUNT_TYPES,
    example: 'customer',
    description: 'customer, agent, merchant, organisation or a technical account type',
  })
  accountType: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
}

export class AuditBalancesView {
  @ApiProperty({ type: 'integer', example: 15_000, description: 'the balance stored on the account (smallest unit)' })
  stored: number;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '15000',
    description: "Σ credits − Σ debits of the account's entries, as an exact decimal string (a damaged ledger may put it beyond 2^53 − 1)",
  })
  recomputed: string;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '0',
    description: 'stored − recomputed, as an exact decimal string; anything but "0" makes the report CRITICAL',
  })
  gap: string;

  @ApiProperty({ type: 'integer', example: 12_500, description: 'the stored available balance' })
  available: number;

  @ApiProperty({ type: 'integer', example: 2_500, description: 'the stored frozen balance' })
  frozen: number;

  @ApiProperty({ example: true, description: 'available + frozen = stored; false makes the report CRITICAL' })
  consistent: boolean;
}

export class AuditEntriesView {
  @ApiProperty({ type: 'integer', minimum: 0, example: 12, description: "the account's ledger entries" })
  count: number;

  @ApiProperty({
    type: 'string',
    pattern: NON_NEGATIVE_DECIMAL_INTEGER,
    example: '5000',
    description: 'Σ of its DEBIT entries, as an exact decimal string: a turnover may exceed 2^53 − 1 while the balance stays in range',
  })
  debits: string;

  @ApiProperty({
    type: 'string',
    pattern: NON_NEGATIVE_DECIMAL_INTEGER,
    example: '20000',
    description: 'Σ of its CREDIT entries, as an exact decimal string (see debits)',
  })
  credits: string;
}

export class AuditSymmetryView {
  @ApiProperty({
    example: true,
    description: 'every entry has its counterparty: opposite kind, same amount, same transaction, pointing back',
  })
  ok: boolean;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    isArray: true,
    example: [],
    description: 'entries whose counterparty does not match (at most 100)',
  })
  unmatchedEntryIds: string[];
}

export class AuditOrphansView {
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    isArray: true,
    example: [],
    description: 'entries whose counterparty is missing (at most 100)',
  })
  entryIds: string[];

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    isArray: true,
    example: [],
    description: 'transactions touching the account whose debits and credits differ (at most 100); any makes the report CRITICAL',
  })
  unbalancedTransactionIds: string[];
}

/** One account's audit: the ledger's `GET /v1/internal/accounts/:id/audit`, the orchestrator's compliance audit. */
export class AccountAuditReportView {
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  generatedAt: string;

  @ApiProperty({
    enum: ACCOUNT_AUDIT_STATUSES,
    example: 'OK',
    description: 'CRITICAL: a balance gap, available + frozen ≠ balance, or an unbalanced transaction; WARNING: other findings only',
  })
  status: AccountAuditStatus;

  @ApiProperty({ type: AuditedAccountView })
  account: AuditedAccountView;

  @ApiProperty({ type: AuditBalancesView, description: 'read in one snapshot with the entries' })
  balances: AuditBalancesView;

  @ApiProperty({ type: AuditEntriesView })
  entries: AuditEntriesView;

  @ApiProperty({ type: AuditSymmetryView })
  symmetry: AuditSymmetryView;

  @ApiProperty({ type: AuditOrphansView })
  orphans: AuditOrphansView;

  @ApiProperty({ type: 'string', isArray: true, example: [], description: 'each problem found, in words (empty when OK)' })
  findings: string[];
}

// ---------------------------------------------------------------------------------------------
// Integrity checks
// ---------------------------------------------------------------------------------------------

/** The query of the list of past checks (ledger and orchestrator alike). */
export class IntegrityChecksQueryDto {
  @ApiPropertyOptional({ description: 'how many of the latest checks to list', minimum: 1, maximum: 100, default: 20, example: 20 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class AccountGapView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'customer' })
  accountType: string;

  @ApiProperty({ type: 'integer', example: 15_000, description: 'the balance stored on the account' })
  stored: number;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '14000',
    description: 'Σ credits − Σ debits of its entries, as an exact decimal string (a damaged ledger may put it beyond 2^53 − 1)',
  })
  recomputed: string;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '1000',
    description: 'stored − recomputed, as an exact decimal string ("0" when only available + frozen ≠ balance)',
  })
  gap: string;

  @ApiProperty({ type: 'integer', example: 15_000, description: 'the stored available balance' })
  available: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'the stored frozen balance' })
  frozen: number;
}

export class CurrencyTotalView {
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '0',
    description:
      'Σ stored balances of the currency, as an exact decimal string ("0" when every movement is double entry; a sum over ' +
      'accounts may pass 2^53 − 1 although each balance is within it)',
  })
  storedTotal: string;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '0',
    description: 'Σ credits − Σ debits over every entry, as an exact decimal string ("0" when every transaction balances)',
  })
  ledgerTotal: string;

  @ApiProperty({
    type: 'string',
    pattern: DECIMAL_INTEGER,
    example: '0',
    description: 'storedTotal − ledgerTotal, as an exact decimal string',
  })
  gap: string;
}

/** What every check records, whether just run or listed afterwards. */
class IntegrityCheckFields {
  @ApiProperty({ format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8' })
  id: string;

  @ApiProperty({ enum: ['SCHEDULED', 'ON_DEMAND'], example: 'ON_DEMAND', description: 'the nightly run, or one asked for' })
  trigger: 'SCHEDULED' | 'ON_DEMAND';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:00.000Z' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:01.250Z' })
  finishedAt: string;

  @ApiProperty({ type: 'integer', example: 48_211, description: 'accounts in the ledger when the check ran' })
  accountsChecked: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 0,
    description:
      'every account with a gap (however many) plus the currencies whose totals are not zero; the gauge ledger_integrity_gap_count',
  })
  gapCount: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 0, description: 'every account with a gap, listed or not' })
  accountGapCount: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 1000,
    example: 0,
    description: 'how many of them `gaps` lists: the first 1000 by account id; fewer than accountGapCount when the list was cut',
  })
  gapsListed: number;

  @ApiProperty({
    example: 'b3c4d5e6-f7a8-4b9c-8d0e-1f2a3b4c5d6e',
    description: "`scheduler` for the nightly run, else the id (auth's user id) of the operator whose access token came with the request",
  })
  requestedBy: string;

  @ApiProperty({ enum: ['OK', 'GAPS_FOUND'], example: 'OK' })
  status: 'OK' | 'GAPS_FOUND';

  @ApiProperty({ type: [CurrencyTotalView], description: 'one per supported currency' })
  currencyTotals: CurrencyTotalView[];

  @ApiProperty({
    type: [AccountGapView],
    description:
      'the accounts whose balance disagrees with their entries, by account id: at most 1000 (see gapsListed and accountGapCount)',
  })
  gaps: AccountGapView[];

  @ApiProperty({
    type: LedgerChainIntegrityView,
    nullable: true,
    description:
      "the hash chain's verification run with the check (docs/ledger-chain.md); null for checks stored before it was part of them",
  })
  ledgerChain: LedgerChainIntegrityView | null;
}

/** The check just run: the ledger's `POST /v1/internal/integrity-checks`, the orchestrator's compliance route. */
export class IntegrityCheckResultView extends IntegrityCheckFields {
  @ApiProperty({
    example: 'c0ffee00-0000-4000-8000-000000000001',
    description: "the request's correlation id (a new one when it had none): logs and alert",
  })
  correlationId: string;

  @ApiProperty({
    example: false,
    description:
      'gaps were found and the compliance channel acknowledged the alert at its first try, made within this run (an alert not acknowledged is sent again in the background)',
  })
  alertSent: boolean;
}

/** The outcome of a check's compliance alert, as stored. */
export class IntegrityAlertView {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 3,
    example: 1,
    description: 'tries made so far, the background re-sends included (0 when no alert URL is configured)',
  })
  attempts: number;

  @ApiProperty({ example: true, description: 'the compliance channel acknowledged one of the tries' })
  delivered: boolean;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'why the last try failed, when none succeeded' })
  lastError: string | null;
}

/** A past check as stored (the list, newest first), with who asked and what became of its alert. */
export class IntegrityCheckRecordView extends IntegrityCheckFields {
  @ApiProperty({ type: String, nullable: true, example: 'c0ffee00-0000-4000-8000-000000000001' })
  correlationId: string | null;

  @ApiProperty({ type: 'string', isArray: true, example: ['COMPLIANCE'], description: "the operator's roles (empty for the scheduler)" })
  requestedByRoles: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'orchestrator',
    description: 'the service that relayed the request (null: the scheduler)',
  })
  caller: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '5d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f8a',
    description: 'the request id of the run (null: the scheduler)',
  })
  requestId: string | null;

  @ApiProperty({
    type: IntegrityAlertView,
    nullable: true,
    description: 'the compliance alert of a run that found gaps (null when there was nothing to alert)',
  })
  alert: IntegrityAlertView | null;
}
