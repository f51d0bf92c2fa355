import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { IsMoney } from '../../intents/dto/money';

export const CORRECTION_DIRECTIONS = ['CREDIT', 'DEBIT'] as const;
export type CorrectionDirection = (typeof CORRECTION_DIRECTIONS)[number];

/** `POST /v1/internal/corrections`: what the maker asks for. The maker is the bearer of the operator token. */
export class SubmitCorrectionDto {
  @ApiProperty({
    description: "the maker's key (a UUID v4): the same key and body again return the same correction",
    format: 'uuid',
    example: '6f2d8c4a-1b3e-4a7f-9d5c-8e0a2b4c6d1f',
  })
  @IsUUID('4')
  idempotencyKey: string;

  @ApiProperty({
    description: 'the account corrected (never the suspense account itself)',
    format: 'uuid',
    example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c',
  })
  @IsUUID()
  accountId: string;

  @ApiProperty({
    enum: CORRECTION_DIRECTIONS,
    description: 'CREDIT adds to the account (from suspense), DEBIT takes from it',
    example: 'CREDIT',
  })
  @IsIn(CORRECTION_DIRECTIONS)
  direction: CorrectionDirection;

  @ApiProperty({ type: 'integer', description: 'smallest currency unit', example: 25_000, minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  @IsMoney()
  amount: number;

  @ApiProperty({
    description: 'why the balance is corrected (kept with every step and in the transaction)',
    example: 'Cash-in of 2026-03-02 credited twice by the partner bank',
    minLength: 10,
    maxLength: 500,
  })
  @IsString()
  @MinLength(10)
  @MaxLength(500)
  reason: string;
}
