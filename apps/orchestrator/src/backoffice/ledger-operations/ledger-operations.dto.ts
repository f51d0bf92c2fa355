import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { type Currency, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsMoney } from '../../common/operation-type';
import { REFERENCE_PATTERN } from './ledger-operations.payloads';

const REASON = { minLength: 3, maxLength: 500 } as const;

type CorrectionBody = { kind?: 'ACCOUNT' | 'REVERSAL'; referenceId?: string; transactionId?: string };
const isReversal = (o: CorrectionBody): boolean => o.kind === 'REVERSAL';

/**
 * `POST /api/backoffice/ledger/corrections`. ACCOUNT (the default): `accountId`, `direction`, `amount`
 * (and `currency`, checked against the account's when given). REVERSAL: `referenceId` or
 * `transactionId` of the ledger transaction to undo. A field of the other kind is refused.
 */
export class SubmitLedgerCorrectionBody {
  @ApiPropertyOptional({ enum: ['ACCOUNT', 'REVERSAL'], default: 'ACCOUNT', example: 'ACCOUNT' })
  @OptionalField()
  @IsIn(['ACCOUNT', 'REVERSAL'])
  kind?: 'ACCOUNT' | 'REVERSAL';

  @ApiPropertyOptional({
    format: 'uuid',
    example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c',
    description: 'ACCOUNT (required): the account corrected',
  })
  @ValidateIf((o: CorrectionBody) => !isReversal(o))
  @IsUUID()
  accountId?: string;

  @ApiPropertyOptional({
    enum: ['CREDIT', 'DEBIT'],
    example: 'CREDIT',
    description: 'ACCOUNT (required): CREDIT adds to the account, DEBIT takes from it',
  })
  @ValidateIf((o: CorrectionBody) => !isReversal(o))
  @IsIn(['CREDIT', 'DEBIT'])
  direction?: 'CREDIT' | 'DEBIT';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 25_000,
    description: 'ACCOUNT (required): smallest currency unit',
  })
  @ValidateIf((o: CorrectionBody) => !isReversal(o))
  @IsMoney(1)
  amount?: number;

  @ApiPropertyOptional({ enum: SUPPORTED_CURRENCIES, example: 'XAF', description: "ACCOUNT: the account's currency (checked when given)" })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES)
  currency?: Currency;

  @ApiPropertyOptional({
    example: 'MMPTX261126K7Q2M9Z',
    description: 'REVERSAL: the reference of the transaction to undo (or transactionId)',
  })
  @ValidateIf((o: CorrectionBody) => isReversal(o) && o.transactionId === undefined)
  @IsString()
  @Matches(REFERENCE_PATTERN, { message: 'referenceId must be a ledger reference (e.g. MMPTX261126K7Q2M9Z)' })
  referenceId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '9b2f6d1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f',
    description: 'REVERSAL: the ledger transaction to undo (or referenceId)',
  })
  @ValidateIf((o: CorrectionBody) => isReversal(o) && o.referenceId === undefined)
  @IsUUID()
  transactionId?: string;

  @ApiProperty({ ...REASON, example: 'Cash-in of 2026-11-27 credited twice by the partner bank' })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

/** `POST /api/backoffice/ledger/agents/:agentId/float-fundings`. */
export class FloatFundingBody {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 500_000, description: 'smallest currency unit' })
  @IsMoney(1)
  amount: number;

  @ApiProperty({
    enum: SUPPORTED_CURRENCIES,
    example: 'XAF',
    description: 'the float account credited is the agent’s account in this currency',
  })
  @IsIn(SUPPORTED_CURRENCIES)
  currency: Currency;

  @ApiProperty({ ...REASON, example: 'Float top-up agreed with the agent network manager' })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

/** `POST /api/backoffice/ledger/holds`. */
export class PlaceHoldBody {
  @ApiProperty({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  @IsUUID()
  accountId: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 25_000, description: 'smallest currency unit' })
  @IsMoney(1)
  amount: number;

  @ApiProperty({ ...REASON, example: 'Suspected account takeover, case 4411' })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

/** `POST /api/backoffice/ledger/holds/:holdId/release`. */
export class ReleaseHoldBody {
  @ApiProperty({ ...REASON, example: 'Case 4411 closed: the customer confirmed the payments' })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

export class ListLedgerCorrectionsQuery {
  @ApiPropertyOptional({ enum: ['PENDING_APPROVAL', 'EXECUTED', 'REJECTED', 'EXPIRED'], example: 'PENDING_APPROVAL' })
  @OptionalField()
  @IsIn(['PENDING_APPROVAL', 'EXECUTED', 'REJECTED', 'EXPIRED'])
  status?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, example: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class ListHoldsQuery {
  @ApiPropertyOptional({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  @OptionalField()
  @IsUUID()
  accountId?: string;

  @ApiPropertyOptional({ enum: ['ACTIVE', 'RELEASED'], example: 'ACTIVE' })
  @OptionalField()
  @IsIn(['ACTIVE', 'RELEASED'])
  status?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, example: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}
