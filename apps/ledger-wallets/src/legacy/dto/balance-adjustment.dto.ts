import { IsString, MaxLength, MinLength } from 'class-validator';
import { IsMoney } from '../../intents/dto/money';

/** Deprecated `PUT /v1/accounts/:id/balance/{add,subtract,freeze,unfreeze}`. */
export class BalanceAdjustmentDto {
  @IsMoney()
  amount: number;

  /** why the balance is corrected; kept in the adjustment transaction's metadata */
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;

  /** operator id, recorded as created_by */
  @IsString()
  @MaxLength(200)
  createdBy: string;
}

export const BALANCE_OPERATIONS = ['add', 'subtract', 'freeze', 'unfreeze'] as const;
export type BalanceOperation = (typeof BALANCE_OPERATIONS)[number];
