import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { SUPPORTED_CURRENCIES, type Currency } from '@mm/contracts';

export class IssueWithdrawalQrDto {
  @ApiPropertyOptional({ enum: SUPPORTED_CURRENCIES, default: 'XAF', example: 'XAF', description: 'field code UNSUPPORTED_CURRENCY' })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES, { context: { code: 'UNSUPPORTED_CURRENCY' } })
  currency?: Currency;

  @ApiPropertyOptional({
    example: 20000,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'the exact amount the customer agrees to withdraw; without it the code is good for any amount. Field code INVALID_AMOUNT.',
  })
  @OptionalField()
  @IsInt({ context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { context: { code: 'INVALID_AMOUNT' } })
  @Max(Number.MAX_SAFE_INTEGER, { context: { code: 'INVALID_AMOUNT' } })
  amount?: number;
}

export class WithdrawalQrView {
  @ApiProperty({
    example: 'wqr_9f2c4e1a0b7d3c5e8f6a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6',
    description: 'show it as a QR code to the agent; it is the secret that authorises the withdrawal, once',
  })
  qrToken: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ example: 20000, nullable: true, type: Number, description: 'null: any amount' })
  amount: number | null;

  @ApiProperty({ example: '2026-11-22T10:07:00.000Z', description: 'unused after this instant, the code is void (2 minutes by default)' })
  expiresAt: string;
}
