import { IsIn, IsUUID } from 'class-validator';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { IsMoney } from './money';

/**
 * Who pays whom, how much, in which currency: the terms every money request of the ledger carries
 * (intent creation, the SUCCEEDED execution context, the legacy direct transfer).
 */
export class TransferTermsDto {
  @IsUUID()
  sourceAccountId: string;

  @IsUUID()
  destinationAccountId: string;

  @IsMoney()
  amount: number;

  @IsIn(SUPPORTED_CURRENCIES)
  currency: string;
}
