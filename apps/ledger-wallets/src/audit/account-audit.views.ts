import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { ACCOUNT_TYPES } from '../wallets/dto/wallet.views';
import type { AccountAuditReport, AuditStatus } from './account-audit.service';

/*
 * OpenAPI shape of the account audit report. The classes `implement` the report the service builds
 * (part by part), so a field added there without its documentation fails to compile; the
 * money-range test compares a real report with this schema.
 */

type AuditedAccount = AccountAuditReport['account'];
type AuditBalances = AccountAuditReport['balances'];
type AuditEntries = AccountAuditReport['entries'];
type AuditSymmetry = AccountAuditReport['symmetry'];
type AuditOrphans = AccountAuditReport['orphans'];

const AUDIT_STATUSES: readonly AuditStatus[] = ['OK', 'WARNING', 'CRITICAL'];

export class AuditedAccountView implements AuditedAccount {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' })
  walletId: string;

  @ApiProperty({ example: 'Awa Ndiaye', description: "the wallet's holder name (its owner id when none was given)" })
  holder: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ enum: ACCOUNT_TYPES, example: 'customer' })
  accountType: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
}

export class AuditBalancesView implements AuditBalances {
  @ApiProperty({ type: 'integer', example: 15_000, description: 'the balance stored on the account (smallest unit)' })
  stored: number;

  @ApiProperty({ type: 'integer', example: 15_000, description: "Σ credits − Σ debits of the account's entries" })
  recomputed: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'stored − recomputed; anything but 0 makes the report CRITICAL' })
  gap: number;

  @ApiProperty({ type: 'integer', example: 12_500, description: 'the stored available balance' })
  available: number;

  @ApiProperty({ type: 'integer', example: 2_500, description: 'the stored frozen balance' })
  frozen: number;

  @ApiProperty({ example: true, description: 'available + frozen = stored; false makes the report CRITICAL' })
  consistent: boolean;
}

export class AuditEntriesView implements AuditEntries {
  @ApiProperty({ type: 'integer', minimum: 0, example: 12, description: "the account's ledger entries" })
  count: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 5_000, description: 'Σ of its DEBIT entries' })
  debits: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 20_000, description: 'Σ of its CREDIT entries' })
  credits: number;
}

export class AuditSymmetryView implements AuditSymmetry {
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

export class AuditOrphansView implements AuditOrphans {
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

export class AccountAuditReportView implements AccountAuditReport {
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  generatedAt: string;

  @ApiProperty({
    enum: AUDIT_STATUSES,
    example: 'OK',
    description: 'CRITICAL: a balance gap, available + frozen ≠ balance, or an unbalanced transaction; WARNING: other findings only',
  })
  status: AuditStatus;

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

  @ApiProperty({
    type: 'string',
    isArray: true,
    example: [],
    description: 'each problem found, in words (empty when OK)',
  })
  findings: string[];
}
