import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateBy, ValidateIf } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { REFERENCE_ID_PATTERN } from '../../execution/reference-id';
import { IsMoney } from '../../intents/dto/money';

export const CORRECTION_DIRECTIONS = ['CREDIT', 'DEBIT'] as const;
export type CorrectionDirection = (typeof CORRECTION_DIRECTIONS)[number];

/** ACCOUNT: one account against suspense. REVERSAL: the inverse of every entry of one ledger transaction. */
export const CORRECTION_KINDS = ['ACCOUNT', 'REVERSAL'] as const;
export type CorrectionKind = (typeof CORRECTION_KINDS)[number];

type Body = { kind?: CorrectionKind; transactionId?: string; referenceId?: string };
const isReversal = (o: Body): boolean => o.kind === 'REVERSAL';

/** Validated when the field belongs to the body's kind, or when it is sent anyway (then refused by `onlyFor`). */
const belongsTo =
  (kind: CorrectionKind, field: string) =>
  (o: Body): boolean =>
    (kind === 'REVERSAL') === isReversal(o) || (o as Record<string, unknown>)[field] !== undefined;

/** Refuses a field sent with the other kind of correction. */
function OnlyFor(kind: CorrectionKind): PropertyDecorator {
  return ValidateBy({
    name: 'onlyForKind',
    validator: {
      validate: (_value, args) => (kind === 'REVERSAL') === isReversal(args?.object as Body),
      defaultMessage: (args) => `${args?.property} is only part of a ${kind} correction`,
    },
  });
}

/** A REVERSAL names its transaction once: by id or by reference, not both, not neither. */
function NamesTransactionOnce(): PropertyDecorator {
  return ValidateBy({
    name: 'namesTransactionOnce',
    validator: {
      validate: (_value, args) => {
        const o = args?.object as Body;
        return (o.transactionId === undefined) !== (o.referenceId === undefined);
      },
      defaultMessage: () => 'a REVERSAL names its transaction by transactionId or by referenceId, exactly one of them',
    },
  });
}

/**
 * `POST /v1/internal/corrections`: what the maker asks for. The maker is the bearer of the operator token.
 * Two kinds: ACCOUNT (the default; `accountId`, `direction`, `amount`) and REVERSAL (`transactionId` or
 * `referenceId` of the ledger transaction to undo). A field of the other kind is refused (400).
 */
export class SubmitCorrectionDto {
  @ApiProperty({
    description: "the maker's key (a UUID v4): the same key and body again return the same correction",
    format: 'uuid',
    example: '6f2d8c4a-1b3e-4a7f-9d5c-8e0a2b4c6d1f',
  })
  @IsUUID('4')
  idempotencyKey: string;

  @ApiPropertyOptional({
    enum: CORRECTION_KINDS,
    default: 'ACCOUNT',
    description:
      'ACCOUNT corrects one account against suspense; REVERSAL undoes one whole ledger transaction (the inverse of each of its entries, every account at once)',
    example: 'ACCOUNT',
  })
  @OptionalField()
  @IsIn(CORRECTION_KINDS)
  kind?: CorrectionKind;

  @ApiPropertyOptional({
    description: 'ACCOUNT only (required there): the account corrected, never the suspense account itself',
    format: 'uuid',
    example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c',
  })
  @ValidateIf(belongsTo('ACCOUNT', 'accountId'))
  @OnlyFor('ACCOUNT')
  @IsUUID()
  accountId?: string;

  @ApiPropertyOptional({
    enum: CORRECTION_DIRECTIONS,
    description: 'ACCOUNT only (required there): CREDIT adds to the account (from suspense), DEBIT takes from it',
    example: 'CREDIT',
  })
  @ValidateIf(belongsTo('ACCOUNT', 'direction'))
  @OnlyFor('ACCOUNT')
  @IsIn(CORRECTION_DIRECTIONS)
  direction?: CorrectionDirection;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'ACCOUNT only (required there): smallest currency unit. A REVERSAL takes the amount of the transaction it reverses',
    example: 25_000,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
  })
  @ValidateIf(belongsTo('ACCOUNT', 'amount'))
  @OnlyFor('ACCOUNT')
  @IsMoney()
  amount?: number;

  @ApiPropertyOptional({
    description: 'REVERSAL only: the id of the ledger transaction to reverse (give this or `referenceId`, not both)',
    format: 'uuid',
    example: '9b2f6d1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f',
  })
  @ValidateIf((o: Body) => (isReversal(o) && o.referenceId === undefined) || o.transactionId !== undefined)
  @OnlyFor('REVERSAL')
  @NamesTransactionOnce()
  @IsUUID()
  transactionId?: string;

  @ApiPropertyOptional({
    description: 'REVERSAL only: the reference of the ledger transaction to reverse (give this or `transactionId`, not both)',
    pattern: REFERENCE_ID_PATTERN.source,
    example: 'MMPTX261126K7Q2M9Z',
  })
  @ValidateIf((o: Body) => o.referenceId !== undefined)
  @OnlyFor('REVERSAL')
  @NamesTransactionOnce()
  @IsString()
  @Matches(REFERENCE_ID_PATTERN)
  referenceId?: string;

  @ApiProperty({
    description: 'why the balance is corrected or the transaction reversed (kept with every step and in the transaction)',
    example: 'Cash-in of 2026-03-02 credited twice by the partner bank',
    minLength: 10,
    maxLength: 500,
  })
  @IsString()
  @MinLength(10)
  @MaxLength(500)
  reason: string;
}
