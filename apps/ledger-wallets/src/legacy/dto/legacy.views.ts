import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import type { IntentStatus } from '../../intents/intent-state-machine';
import type { IntentView } from '../../intents/intent-view';
import { REFERENCE_ID_PATTERN } from '../../execution/reference-id';
import { AccountViewDto } from '../../wallets/dto/wallet.views';
import type { BalanceAdjustmentResult } from '../balance-adjustments.service';
import { BALANCE_OPERATIONS, type BalanceOperation } from './balance-adjustment.dto';

/*
 * OpenAPI shapes of what the deprecated routes answer. The classes `implement` the types the
 * services return, so a field added there without its documentation fails to compile; the
 * money-range and concurrency tests compare real answers with these schemas.
 */

/** The readable reference of a ledger transaction: platform prefix, `TX`, yymmdd, 7 characters. */
const REFERENCE_PATTERN = REFERENCE_ID_PATTERN.source;

/**
 * What `POST /v1/transactions` answers: the intent it ran to the end, as the intent routes show it.
 * Named apart from the intent routes' own schema so that the two can be documented independently.
 */
export class LegacyTransferView implements IntentView {
  @ApiProperty({ format: 'uuid', example: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9', description: 'the intent the transfer ran as' })
  intentId: string;

  @ApiProperty({ enum: ['TRANSFER'], example: 'TRANSFER' })
  type: string;

  @ApiProperty({
    enum: ['SUCCEEDED'],
    example: 'SUCCEEDED',
    description: 'a transfer that cannot run answers an error, its intent moved to FAILED (the hold released)',
  })
  status: IntentStatus;

  @ApiProperty({ example: false, description: 'always false here (no OTP step)' })
  requiresOtp: boolean;

  @ApiProperty({ format: 'uuid', example: '3f1e2d4c-5b6a-4789-8abc-def012345678', description: 'debited amount + fee' })
  sourceAccountId: string;

  @ApiProperty({ format: 'uuid', example: '9a8b7c6d-5e4f-4321-8fed-cba987654321' })
  destinationAccountId: string;

  @ApiProperty({ type: 'integer', minimum: 1, example: 5_000, description: 'smallest currency unit' })
  amount: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 100, description: 'smallest currency unit, credited to the fee account' })
  fee: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 5_100, description: 'amount + fee, held on the source until the execution' })
  frozenAmount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'always null here' })
  qrToken: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Rent for March' })
  description: string | null;

  @ApiProperty({ example: 'legacy-backoffice', description: "the request's createdBy" })
  initiatedBy: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'always null here' })
  otpUserId: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817',
    description: 'the executed transaction',
  })
  transactionId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    pattern: REFERENCE_PATTERN,
    example: 'MMPTX2611220A1B2C3',
    description: "the transaction's readable reference",
  })
  referenceId: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  failureReason: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:15:00.000Z', description: 'the deadline the intent had' })
  expiresAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.050Z' })
  updatedAt: string;
}

/** What `PUT /v1/accounts/{id}/balance/{operation}` answers. */
export class BalanceAdjustmentView implements BalanceAdjustmentResult {
  @ApiProperty({ type: AccountViewDto, description: 'the account after the operation' })
  account: AccountViewDto;

  @ApiProperty({ enum: BALANCE_OPERATIONS, example: 'freeze' })
  operation: BalanceOperation;

  @ApiProperty({ type: 'integer', minimum: 1, example: 5_000, description: 'smallest currency unit' })
  amount: number;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: null,
    description: 'the adjustment transaction (add, subtract: test funding only); null for freeze and unfreeze',
  })
  transactionId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    pattern: REFERENCE_PATTERN,
    example: null,
    description: "the adjustment transaction's readable reference; null for freeze and unfreeze",
  })
  referenceId: string | null;
}
