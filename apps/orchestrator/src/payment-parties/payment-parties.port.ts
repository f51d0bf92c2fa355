import type { Currency, CustomerRole } from '@mm/contracts';

/**
 * Who takes part in a payment, as the customer module knows them. The intent flow depends on this
 * narrow interface only (the PAYMENT_PARTIES token), never on the customer module's tables.
 */
export interface PaymentParty {
  customerId: string;
  /** auth's local user id (the access token's `sub`) */
  userId: string;
  role: CustomerRole;
  /** `active`, `frozen`, `closed` */
  status: string;
  kycTier: string;
  phone: string;
  /** what a receipt and an SMS call this party: "Awa N." for a person, the business name for a merchant */
  displayName: string;
  /** the account money moves through, per currency (an agent's float account) */
  accounts: Partial<Record<Currency, string>>;
  /** agents: their commission account per currency */
  commissionAccounts: Partial<Record<Currency, string>>;
  /** agents and master agents */
  agent?: { agentId: string; agentCode: string; masterAgentUserId: string | null };
  /** merchants */
  merchantId?: string;
}

export interface PaymentPartiesPort {
  byUserId(userId: string): Promise<PaymentParty | undefined>;
  /** The parties of these user ids, in the same order (undefined for one unknown), read at once. */
  byUserIds(userIds: string[]): Promise<Array<PaymentParty | undefined>>;
  /**
   * The party of a user id (who starts a payment) and the party of a phone (whom it is with), read
   * at once; the same party for both when the phone is the user's own.
   */
  initiatorAndCounterparty(
    userId: string,
    phone: string,
  ): Promise<{ initiator: PaymentParty | undefined; counterparty: PaymentParty | undefined }>;
  byMerchantId(merchantId: string): Promise<PaymentParty | undefined>;
}

export const PAYMENT_PARTIES = Symbol('PAYMENT_PARTIES');
