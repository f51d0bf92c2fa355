import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { IsMoney } from '../../intents/dto/money';

/** Deprecated `POST /v1/transactions`: a direct transfer, run as intent → PIN_VERIFIED → SUCCEEDED. */
export class LegacyTransactionDto {
  @IsUUID()
  sourceAccountId: string;

  @IsUUID()
  destinationAccountId: string;

  @IsMoney()
  amount: number;

  @IsIn(SUPPORTED_CURRENCIES)
  currency: string;

  @IsOptional()
  @IsMoney(0)
  fee?: number;

  @IsString()
  @MaxLength(200)
  createdBy: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  typeCode?: string;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}
