import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsMoney } from '../intents/dto/money';

/** `PUT /v1/accounts/:id/balance/{add,subtract}`: the test-funding flow (docs/ledger-corrections.md "Test funding"). */
export class TestFundingDto {
  @ApiProperty({ type: 'integer', description: 'smallest currency unit', example: 5_000, minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  @IsMoney()
  amount: number;

  /** journaled with the adjustment */
  @ApiProperty({ example: 'test funding', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;

  /** a label only (the flow has no operator identity): journaled as the operator and the transaction's author */
  @ApiPropertyOptional({ description: 'free-text label of the caller, journaled (default test-funding)', maxLength: 200, example: 'test' })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  createdBy?: string;
}

export const TEST_FUNDING_OPERATIONS = ['add', 'subtract'] as const;
export type TestFundingOperation = (typeof TEST_FUNDING_OPERATIONS)[number];
