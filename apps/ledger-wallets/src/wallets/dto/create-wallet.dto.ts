import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';

export const WALLET_OWNER_TYPES = ['USER', 'AGENT', 'MERCHANT', 'ORGANISATION'] as const;
export type WalletOwnerType = (typeof WALLET_OWNER_TYPES)[number];

/** `POST /v1/internal/wallets`: idempotent, one wallet per entity, one account per currency. */
export class CreateWalletDto {
  @ApiProperty({ enum: WALLET_OWNER_TYPES, example: 'USER' })
  @IsIn(WALLET_OWNER_TYPES)
  ownerType: WalletOwnerType;

  /** the entity's id in its own service (customer id, agent id, merchant id) */
  @ApiProperty({
    description: "the entity's id in its own service",
    example: '5b0f3c1e-8d2a-4f6b-9c7e-1a2b3c4d5e6f',
    minLength: 1,
    maxLength: 200,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  ownerId: string;

  /** display name of the holder; defaults to the owner id */
  @ApiPropertyOptional({ description: 'defaults to the owner id', example: 'Awa Ndiaye', maxLength: 200 })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  holderName?: string;

  /** defaults to every supported currency (XAF and XOF) */
  @ApiPropertyOptional({
    description: 'currencies to open an account in; defaults to every supported one',
    type: [String],
    enum: SUPPORTED_CURRENCIES,
    minItems: 1,
    uniqueItems: true,
    example: ['XAF'],
  })
  @OptionalField()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(SUPPORTED_CURRENCIES, { each: true })
  currencies?: string[];
}
