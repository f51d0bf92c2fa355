import type { Currency, CustomerRole, CustomerStatus } from '@mm/contracts';

/** A customer as the rest of the orchestrator sees it (never a table row). */
export interface Customer {
  id: string;
  /** auth's local user id (the access token's `sub`) */
  userId: string;
  phone: string;
  role: CustomerRole;
  status: CustomerStatus;
  kycTier: string;
  firstName: string;
  lastName: string;
  countryCode: string;
  email: string | null;
  walletId: string | null;
  /** the ledger account per currency money moves through (customer, merchant or agent float account) */
  accounts: Partial<Record<Currency, string>>;
  /** agents only: the commission account per currency */
  commissionAccounts: Partial<Record<Currency, string>>;
  createdAt: string;
}

export interface NewCustomer {
  id: string;
  userId: string;
  phone: string;
  role: CustomerRole;
  firstName: string;
  lastName: string;
  countryCode: string;
  email?: string | null;
  registrationId: string;
}

export interface WalletAccounts {
  walletId: string;
  accounts: Array<{ accountId: string; currency: Currency; purpose: 'main' | 'commission' }>;
}

export interface ProfilePatch {
  firstName?: string;
  lastName?: string;
  email?: string | null;
}

export interface CustomerSearch {
  phone?: string;
  /** prefix of the phone number or of a name, case-insensitive */
  q?: string;
  status?: CustomerStatus;
  role?: CustomerRole;
  limit: number;
  cursor?: string;
}
