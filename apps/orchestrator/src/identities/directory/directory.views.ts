import { ApiProperty } from '@nestjs/swagger';
import { CUSTOMER_STATUSES, type Currency, type CustomerStatus, type MerchantDirectoryEntry } from '@mm/contracts';

export class CurrencyAccountsView {
  @ApiProperty({ required: false, format: 'uuid', example: 'd8a2616f-f2a4-4c33-b911-d40cb9c8cba9', description: 'ledger account in XAF' })
  XAF?: string;

  @ApiProperty({ required: false, format: 'uuid', example: 'cea2333b-390b-404c-b78f-192a5e18d57c', description: 'ledger account in XOF' })
  XOF?: string;
}

export class MerchantDirectoryEntryView implements MerchantDirectoryEntry {
  @ApiProperty({ format: 'uuid', example: 'ff222ead-b1a4-4b64-9afc-1be04ae8a52a' })
  merchantId: string;

  @ApiProperty({ example: 'Boulangerie du Centre', maxLength: 120 })
  businessName: string;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ enum: CUSTOMER_STATUSES, example: 'active' })
  status: CustomerStatus;

  @ApiProperty({ format: 'uuid', example: 'c6caf3e0-f882-4df9-8c99-ab5aa9489aa9', description: "the merchant's ledger wallet" })
  walletId: string;

  @ApiProperty({ type: CurrencyAccountsView, description: "the merchant's ledger account per currency" })
  accounts: Partial<Record<Currency, string>>;
}
