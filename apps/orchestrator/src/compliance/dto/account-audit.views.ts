import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';

/*
 * The ledger's account audit report (spec 2 "Audit on demand"), relayed as the ledger wrote it.
 * Amounts are integers in the currency's smallest unit.
 */

export class AuditedAccountView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' })
  walletId: string;

  @ApiProperty({ example: 'Awa Ndiaye', description: "the wallet's holder name (its owner id when none was given)" })
  holder: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'customer', description: 'customer, agent, merchant, organisation or a technical account type' })
  accountType: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
}

export class AuditBalancesView {
  @ApiProperty({ type: 'integer', example: 15_000, description: 'the balance stored on the account' })
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

export class AuditEntriesView {
  @ApiProperty({ type: 'integer', minimum: 0, example: 12, description: "the account's ledger entries" })
  count: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 5_000, description: 'Σ of its DEBIT entries' })
  debits: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 20_000, description: 'Σ of its CREDIT entries' })
  credits: number;
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
    description: 'transactions touching the account whose debits and credits differ (at most 100)',
  })
  unbalancedTransactionIds: string[];
}

export class AccountAuditReportView {
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  generatedAt: string;

  @ApiProperty({
    enum: ['OK', 'WARNING', 'CRITICAL'],
    example: 'OK',
    description: 'CRITICAL: a balance gap, available + frozen ≠ balance, or an unbalanced transaction; WARNING: other findings only',
  })
  status: 'OK' | 'WARNING' | 'CRITICAL';

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
