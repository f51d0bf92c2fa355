import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { WALLET_OWNER_TYPES } from './create-wallet.dto';

export class OwnerQueryDto {
  @ApiProperty({ enum: WALLET_OWNER_TYPES, example: 'USER' })
  @IsIn(WALLET_OWNER_TYPES)
  ownerType: string;

  @ApiProperty({ description: "the entity's id in its own service", example: '5b0f3c1e-8d2a-4f6b-9c7e-1a2b3c4d5e6f', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  ownerId: string;
}

/** `POST /v1/internal/wallets/close`: the owner whose unused wallet is closed. */
export class CloseWalletDto {
  @ApiProperty({ enum: WALLET_OWNER_TYPES, example: 'USER' })
  @IsIn(WALLET_OWNER_TYPES)
  ownerType: string;

  @ApiProperty({ description: "the entity's id in its own service", example: '5b0f3c1e-8d2a-4f6b-9c7e-1a2b3c4d5e6f', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  ownerId: string;
}

export class TechnicalAccountsQueryDto {
  @ApiPropertyOptional({ description: 'only the accounts in this currency', enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES)
  currency?: string;
}
