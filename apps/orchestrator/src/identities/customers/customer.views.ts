import { ApiProperty } from '@nestjs/swagger';
import { CUSTOMER_ROLES, CUSTOMER_STATUSES, type CustomerRole, type CustomerStatus } from '@mm/contracts';
import { SUPPORTED_COUNTRIES } from '../../common/countries';
import { CurrencyAccountsView } from '../directory/directory.views';
import type { Customer } from './customer.types';

export class CustomerView {
  @ApiProperty({
    format: 'uuid',
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'the customer record (the `customerId` of the registration)',
  })
  id: string;

  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the user id (access token subject)' })
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

  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    example: '4ac4573d-9a58-44ce-92cf-f46fab963969',
    description: 'the ledger wallet; null until the registration has opened it (or after its compensation closed it)',
  })
  walletId: string | null;

  @ApiProperty({ type: CurrencyAccountsView })
  accounts: CurrencyAccountsView;

  @ApiProperty({ type: CurrencyAccountsView, description: 'agents only' })
  commissionAccounts: CurrencyAccountsView;

  @ApiProperty({ format: 'date-time', example: '2026-09-18T09:12:45.120Z' })
  createdAt: string;
}

export function toCustomerView(c: Customer): CustomerView {
  return { ...c };
}

export class BalanceView {
  @ApiProperty({ format: 'uuid', example: 'd8a2616f-f2a4-4c33-b911-d40cb9c8cba9', description: 'the ledger account' })
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
  @ApiProperty({ format: 'uuid', example: '4ac4573d-9a58-44ce-92cf-f46fab963969' })
  walletId: string;

  @ApiProperty({ type: [BalanceView] })
  balances: BalanceView[];
}

export class CustomerPageView {
  @ApiProperty({ type: [CustomerView] })
  items: CustomerView[];

  @ApiProperty({
    nullable: true,
    type: String,
    example: 'WyIyMDI2LTA5LTE4VDA5OjEyOjQ1LjEyMFoiLCI4YTNmNWMxZS03YjJkLTRmOWEtYTZlNC0wYzFiM2Q1ZjdhOTIiXQ',
    description: 'pass as `cursor` for the next page; null on the last page',
  })
  nextCursor: string | null;
}
