import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { IsMoney } from './money';

/**
 * Who pays whom, how much, in which currency: the terms every money request of the ledger carries
 * (intent creation, the SUCCEEDED execution context, the legacy direct transfer).
 */
export class TransferTermsDto {
  @ApiProperty({ description: 'account debited (amount + fee)', format: 'uuid', example: '3f1e2d4c-5b6a-4789-8abc-def012345678' })
  @IsUUID()
  sourceAccountId: string;

  @ApiProperty({ description: 'account credited', format: 'uuid', example: '9a8b7c6d-5e4f-4321-8fed-cba987654321' })
  @IsUUID()
  destinationAccountId: string;

  @ApiProperty({ type: 'integer', description: 'smallest currency unit', example: 5_000, minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  @IsMoney()
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  @IsIn(SUPPORTED_CURRENCIES)
  currency: string;
}
