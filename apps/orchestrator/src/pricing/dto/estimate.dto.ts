import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DigitsToNumber } from '../../config-api/config-params';
import { CURRENCIES, type Currency, IsMoney, OPERATION_TYPES, type OperationType } from '../../common/operation-type';

export class EstimateQueryDto {
  @ApiProperty({ enum: OPERATION_TYPES, example: 'TRANSFER' })
  @IsIn(OPERATION_TYPES)
  type: OperationType;

  @ApiProperty({
    description: 'integer amount, smallest currency unit (decimal digits only)',
    example: 10000,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
  })
  @DigitsToNumber()
  @IsMoney(1)
  amount: number;

  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  @IsIn(CURRENCIES)
  currency: Currency;
}

export class EstimateView {
  @ApiProperty({ enum: OPERATION_TYPES, example: 'TRANSFER' })
  type: OperationType;

  @ApiProperty({ example: 10000 })
  amount: number;

  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ description: 'fee the payer pays on top of the amount', example: 100 })
  fee: number;

  @ApiProperty({ description: 'amount + fee: what leaves the payer account', example: 10100 })
  total: number;

  @ApiProperty({ description: 'commission the agent earns (cash-in, cash-out), paid by the platform, not the customer', example: 0 })
  commission: number;

  @ApiProperty({ description: 'pricing version used', example: 1 })
  gridVersion: number;
}
