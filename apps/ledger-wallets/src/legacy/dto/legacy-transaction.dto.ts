import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsMoney } from '../../intents/dto/money';
import { TransferTermsDto } from '../../intents/dto/transfer-terms.dto';

/** Deprecated `POST /v1/transactions`: a direct transfer, run as intent → PIN_VERIFIED → SUCCEEDED. */
export class LegacyTransactionDto extends TransferTermsDto {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'fee in the smallest currency unit, debited with the amount',
    example: 100,
    minimum: 0,
  })
  @OptionalField()
  @IsMoney(0)
  fee?: number;

  @ApiProperty({ description: 'who asked for the transfer (free text, journaled)', example: 'legacy-backoffice', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  createdBy: string;

  @ApiPropertyOptional({ description: 'legacy transaction type label', example: 'P2P', maxLength: 64 })
  @OptionalField()
  @IsString()
  @MaxLength(64)
  typeCode?: string;

  @ApiPropertyOptional({ example: 'Rent for March', maxLength: 500 })
  @OptionalField()
  @IsString()
  @MaxLength(500)
  description?: string;
}
