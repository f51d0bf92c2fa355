import { ApiProperty } from '@nestjs/swagger';
import { CUSTOMER_ROLES, CUSTOMER_STATUSES, type CustomerRole, type CustomerStatus } from '@mm/contracts';
import { SUPPORTED_COUNTRIES } from '../common/countries';
import { CurrencyAccountsView } from '../directory/directory.views';
import type { Customer } from './customer.types';

export class CustomerView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'the user id (access token subject)' })
  userId: string;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ enum: CUSTOMER_ROLES, example: 'CUSTOMER' })
  role: CustomerRole;

  @ApiProperty({ enum: CUSTOMER_STATUSES, example: 'active', description: 'frozen: no sign-in, no money movement' })
  status: CustomerStatus;

  @ApiProperty({ example: 'TIER_1' })
  kycTier: string;

  @ApiProperty({ example: 'Awa' })
  firstName: string;

  @ApiProperty({ example: 'Nkoulou' })
  lastName: string;

  @ApiProperty({ enum: SUPPORTED_COUNTRIES, example: 'CM' })
  countryCode: string;

  @ApiProperty({ nullable: true, type: String, example: 'awa@example.cm' })
  email: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  walletId: string | null;

  @ApiProperty({ type: CurrencyAccountsView })
  accounts: CurrencyAccountsView;

  @ApiProperty({ type: CurrencyAccountsView, description: 'agents only' })
  commissionAccounts: CurrencyAccountsView;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export function toCustomerView(c: Customer): CustomerView {
  return { ...c };
}

export class BalanceView {
  @ApiProperty({ format: 'uuid' })
  accountId: string;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'customer', description: 'ledger account type: customer, merchant, agent (float) or agent_commission' })
  accountType: string;

  @ApiProperty({ example: 15000, description: 'integer, smallest unit' })
  balance: number;

  @ApiProperty({ example: 15000 })
  availableBalance: number;

  @ApiProperty({ example: 0, description: 'reserved by payments in progress' })
  frozenBalance: number;
}

export class WalletBalancesView {
  @ApiProperty({ format: 'uuid' })
  walletId: string;

  @ApiProperty({ type: [BalanceView] })
  balances: BalanceView[];
}

export class CustomerPageView {
  @ApiProperty({ type: [CustomerView] })
  items: CustomerView[];

  @ApiProperty({ nullable: true, type: String, description: 'pass as `cursor` for the next page; null on the last page' })
  nextCursor: string | null;
}
