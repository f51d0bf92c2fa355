import { ApiProperty } from '@nestjs/swagger';
import { LEDGER_ACCOUNT_TYPES } from './compliance-views';
import { SUPPORTED_CURRENCIES } from './services';

/*
 * What the ledger answers on `GET /v1/internal/regulatory/operations`: the succeeded operations of
 * a time window at or above an amount, read by the orchestrator's regulatory reports
 * (docs/regulatory-reports.md). One definition for both sides. Amounts are integers in the
 * currency's smallest unit (XAF and XOF have no minor unit: 1 = one franc); times are ISO 8601 UTC
 * to the microsecond, as the ledger stores them, so a report rebuilt later reads the same text.
 */

/** The intent types a threshold report covers; ADJUSTMENT (an operator's correction or reversal) is not a customer operation. */
export const REGULATORY_OPERATION_TYPES = ['CASH_IN', 'CASH_OUT', 'TRANSFER'] as const;
export type RegulatoryOperationType = (typeof REGULATORY_OPERATION_TYPES)[number];

/** Wallet owner kinds (ledger.wallets.owner_type). */
export const LEDGER_OWNER_TYPES = ['USER', 'AGENT', 'MERCHANT', 'ORGANISATION', 'SYSTEM'] as const;

/** Most operations one page of the regulatory read answers. */
export const MAX_REGULATORY_PAGE = 1000;

export class RegulatoryPartyView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({ enum: LEDGER_ACCOUNT_TYPES, example: 'customer' })
  accountType: string;

  @ApiProperty({ example: 'Awa Ndiaye', description: "the wallet's holder name as the ledger keeps it" })
  holder: string;

  @ApiProperty({ enum: LEDGER_OWNER_TYPES, example: 'USER' })
  ownerType: string;

  @ApiProperty({ example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', description: "the wallet owner's id (a user id for people)" })
  ownerId: string;
}

export class RegulatoryOperationView {
  @ApiProperty({ format: 'uuid', example: '9b2f6d1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611270A1B2C3' })
  reference: string;

  @ApiProperty({ enum: REGULATORY_OPERATION_TYPES, example: 'CASH_IN' })
  type: RegulatoryOperationType;

  @ApiProperty({ type: 'integer', example: 6_000_000, description: 'smallest currency unit' })
  amount: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'the fee taken on top (smallest currency unit)' })
  fee: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({
    example: '2026-11-27T09:14:03.123456Z',
    description: 'when the money moved (the transaction committed), UTC, microseconds',
  })
  completedAt: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    description: 'the agent (its orchestrator agent id) who served a cash-in or cash-out; null for a transfer',
  })
  agentId: string | null;

  @ApiProperty({ type: RegulatoryPartyView, description: 'the debited account' })
  source: RegulatoryPartyView;

  @ApiProperty({ type: RegulatoryPartyView, description: 'the credited account' })
  destination: RegulatoryPartyView;
}

export class RegulatoryOperationPageView {
  @ApiProperty({ type: [RegulatoryOperationView], description: 'oldest first (completion time, then reference)' })
  items: RegulatoryOperationView[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'MjAyNi0xMS0yN1QwOToxNDowMy4xMjM0NTZafE1NUFRYMjYxMTI3MEExQjJDMw',
    description: 'the next page, or null',
  })
  nextCursor: string | null;
}

/** The keyset of the regulatory read: (completion time to the microsecond, reference). */
export function encodeRegulatoryCursor(completedAt: string, reference: string): string {
  return Buffer.from(`${completedAt}|${reference}`, 'utf8').toString('base64url');
}

export function decodeRegulatoryCursor(cursor: string): [string, string] | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([A-Z]{3}TX\d{6}[A-Z0-9]{7})$/.exec(text);
  if (!match) return null;
  // The shape alone lets through a day or hour that does not exist (2026-13-45T99:…), which PostgreSQL
  // would refuse as a timestamptz with a 500; the instant must round-trip through Date to the millisecond.
  const millis = `${match[1].slice(0, 23)}Z`;
  const at = new Date(millis);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== millis || at.getUTCFullYear() < 1000) return null;
  return [match[1], match[2]];
}
