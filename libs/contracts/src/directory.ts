import type { Currency } from './services';

/**
 * Internal lookups the orchestrator's customer module serves to other services (service key
 * required). Partners resolves a merchant from a connection request's phone number and checks
 * that a paid order's money reached the merchant's account.
 */
export const DIRECTORY_ROUTES = {
  /** GET, query `phone=<E.164>`: 200 MerchantDirectoryEntry, or 404 MERCHANT_NOT_FOUND */
  merchantByPhone: '/api/internal/directory/merchants/by-phone',
  /** GET `/api/internal/directory/merchants/:merchantId`: 200 MerchantDirectoryEntry, or 404 MERCHANT_NOT_FOUND */
  merchantById: '/api/internal/directory/merchants',
} as const;

export interface MerchantDirectoryEntry {
  merchantId: string;
  businessName: string;
  phone: string;
  status: 'active' | 'frozen' | 'closed';
  walletId: string;
  /** the merchant's ledger account per currency */
  accounts: Partial<Record<Currency, string>>;
}
