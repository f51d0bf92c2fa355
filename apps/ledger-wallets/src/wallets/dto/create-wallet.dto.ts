import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';

export const WALLET_OWNER_TYPES = ['USER', 'AGENT', 'MERCHANT', 'ORGANISATION'] as const;
export type WalletOwnerType = (typeof WALLET_OWNER_TYPES)[number];

/** `POST /v1/internal/wallets`: idempotent, one wallet per entity, one account per currency. */
export class CreateWalletDto {
  @IsIn(WALLET_OWNER_TYPES)
  ownerType: WalletOwnerType;

  /** the entity's id in its own service (customer id, agent id, merchant id) */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  ownerId: string;

  /** display name of the holder; defaults to the owner id */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  holderName?: string;

  /** defaults to every supported currency (XAF and XOF) */
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(SUPPORTED_CURRENCIES, { each: true })
  currencies?: string[];
}
