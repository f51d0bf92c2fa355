import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsMoney } from '../../intents/dto/money';

/** Deprecated `PUT /v1/accounts/:id/balance/{add,subtract,freeze,unfreeze}`. */
export class BalanceAdjustmentDto {
  @ApiProperty({ type: 'integer', description: 'smallest currency unit', example: 5_000, minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  @IsMoney()
  amount: number;

  /** why the balance is held or released; journaled with the operator who did it */
  @ApiProperty({ example: 'Court order 2026/118', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;

  /**
   * Kept for old callers; never trusted as an identity. Holds record the operator of the access
   * token; the test-funding flow (NODE_ENV=test only) records this text.
   */
  @ApiPropertyOptional({
    deprecated: true,
    description: 'ignored for holds: the operator is the bearer of the access token',
    maxLength: 200,
    example: 'ops-console',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  createdBy?: string;
}

export const BALANCE_OPERATIONS = ['add', 'subtract', 'freeze', 'unfreeze'] as const;
export type BalanceOperation = (typeof BALANCE_OPERATIONS)[number];
