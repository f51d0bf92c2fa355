import { ApiProperty } from '@nestjs/swagger';
import { type Currency, LEDGER_ACCOUNT_TYPES, SUPPORTED_CURRENCIES } from '@mm/contracts';
import type { AccountView } from '../account-view';
import type { WalletView } from '../wallets.service';

/*
 * OpenAPI shapes of what the wallet routes answer. The classes `implement` the views the service
 * builds, so a field added there without its documentation fails to compile; the wallet test
 * compares the documented property names with real answers.
 */

export class AccountViewDto implements AccountView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' })
  walletId: string;

  @ApiProperty({
    enum: LEDGER_ACCOUNT_TYPES,
    example: 'customer',
    description: 'fee_collection, treasury, suspense and black are technical accounts (one per currency)',
  })
  accountType: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ example: 'Awa Ndiaye', description: "the wallet's holder name (its owner id when none was given)" })
  holder: string;

  @ApiProperty({
    type: 'integer',
    example: 15_000,
    description: 'integer, smallest unit: available + frozen; only treasury and suspense may be negative',
  })
  balance: number;

  @ApiProperty({ type: 'integer', example: 12_500, description: 'what can be spent now' })
  availableBalance: number;

  @ApiProperty({ type: 'integer', example: 2_500, minimum: 0, description: 'reserved by payments in progress' })
  frozenBalance: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  updatedAt: string;
}

export class WalletViewDto implements WalletView {
  @ApiProperty({ format: 'uuid', example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' })
  id: string;

  @ApiProperty({
    enum: ['USER', 'AGENT', 'MERCHANT', 'ORGANISATION', 'SYSTEM'],
    example: 'USER',
    description: 'SYSTEM: the technical accounts',
  })
  ownerType: string;

  @ApiProperty({ example: '5b0f3c1e-8d2a-4f6b-9c7e-1a2b3c4d5e6f', description: "the entity's id in its own service" })
  ownerId: string;

  @ApiProperty({ type: String, nullable: true, example: 'Awa Ndiaye' })
  holderName: string | null;

  @ApiProperty({
    enum: ['ACTIVE', 'SUSPENDED', 'CLOSED'],
    example: 'ACTIVE',
    description: 'CLOSED: an unused wallet closed by a registration compensation',
  })
  status: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: [AccountViewDto], description: 'one per currency and account type, ordered by currency then type' })
  accounts: AccountViewDto[];
}

export class ClosedWalletView {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    description: 'null when ABSENT',
  })
  walletId: string | null;

  @ApiProperty({ enum: ['CLOSED', 'ABSENT'], example: 'CLOSED', description: 'ABSENT: the owner never had a wallet' })
  status: 'CLOSED' | 'ABSENT';
}
