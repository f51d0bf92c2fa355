import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsMoney } from '../../intents/dto/money';
import { TransferTermsDto } from '../../intents/dto/transfer-terms.dto';

/** Deprecated `POST /v1/transactions`: a direct transfer, run as intent → PIN_VERIFIED → SUCCEEDED. */
export class LegacyTransactionDto extends TransferTermsDto {
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
