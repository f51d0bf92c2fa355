import { ApiProperty } from '@nestjs/swagger';
import { CUSTOMER_STATUSES, type Currency, type CustomerStatus, type MerchantDirectoryEntry } from '@mm/contracts';

export class CurrencyAccountsView {
  @ApiProperty({ required: false, format: 'uuid', description: 'ledger account in XAF' })
  XAF?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'ledger account in XOF' })
  XOF?: string;
}

export class MerchantDirectoryEntryView implements MerchantDirectoryEntry {
  @ApiProperty({ format: 'uuid' })
  merchantId: string;

  @ApiProperty({ example: 'Boulangerie du Centre', maxLength: 120 })
  businessName: string;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ enum: CUSTOMER_STATUSES, example: 'active' })
  status: CustomerStatus;

  @ApiProperty({ format: 'uuid' })
  walletId: string;

  @ApiProperty({ type: CurrencyAccountsView, description: "the merchant's ledger account per currency" })
  accounts: Partial<Record<Currency, string>>;
}
