import type { Currency, OperationType } from '../common/operation-type';

/** A customer taking part in an operation, as the customer module knows it. */
export interface LimitCustomer {
  userId: string;
  /** KYC tier code (TIER_1, TIER_2, TIER_3 by default); an unknown code gets the lowest tier of the currency */
  kycTier: string;
}

/** One operation as the limits see it. The same object serves create, confirm, success and failure. */
export interface LimitCheck {
  /**
   * The intent's idempotencyKey (known at create, before the ledger assigns an intent id): holds
   * and usage are keyed on it, so a retried confirm never counts twice.
   */
  operationId: string;
  type: OperationType;
  /** integer, smallest currency unit */
  amount: number;
  currency: Currency;
  /** the customer whose account is debited (TRANSFER or MERCHANT_PAYMENT sender, CASH_OUT customer) */
  payer?: LimitCustomer;
  /**
   * the customer whose account is credited (TRANSFER recipient, CASH_IN customer); a merchant is
   * not given here (no tier caps on business accounts). Its tier gives the balance cap the ledger
   * checks (LimitsService.balanceCap).
   */
  payee?: LimitCustomer;
  /** the agent of a CASH_IN or CASH_OUT (per-operation and daily ceilings) */
  agent?: { agentId: string };
  /**
   * the user who started the operation. The room left under a daily or monthly limit derives from
   * what the paying customer moved, so a refusal states it only when this is that customer; when it
   * is unknown or anyone else, the refusal carries no amount. The intents' `limitCheck` always sets
   * it; it stays optional for checks built elsewhere (the rules' unit tests judge the unknown case).
   */
  initiatorUserId?: string;
  /**
   * Until when the ledger may execute the operation: its intent's expiry (ISO 8601), known from the
   * confirm on. A hold taken at confirm lasts `holdSeconds` past it (LimitsService `holdWrite`).
   */
  executableUntil?: string;
}

/** Which limits version judged the operation (worth keeping with the intent). */
export interface LimitVerdict {
  limitsVersion: number;
}
