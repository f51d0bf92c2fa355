import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { WALLET_OWNER_TYPES } from './create-wallet.dto';

export class OwnerQueryDto {
  @IsIn(WALLET_OWNER_TYPES)
  ownerType: string;

  @IsString()
  @MaxLength(200)
  ownerId: string;
}

export class TechnicalAccountsQueryDto {
  @IsOptional()
  @IsIn(SUPPORTED_CURRENCIES)
  currency?: string;
}
