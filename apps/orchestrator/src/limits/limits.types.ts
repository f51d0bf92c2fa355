import type { Currency, OperationType } from '../pricing/operation-type';

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
   * not given here (no tier caps on business accounts). `currentBalance` (the ledger balance of the
   * credited account before the operation) enables the balance-cap check; `incoming` (credits of
   * other confirms held for this customer that have not reached the ledger yet) counts against it
   * too. At confirm both are read by `holdAtConfirm` itself, under the payee's lock.
   */
  payee?: LimitCustomer & { currentBalance?: number; incoming?: number };
  /** the agent of a CASH_IN or CASH_OUT (per-operation and daily ceilings) */
  agent?: { agentId: string };
  /**
   * the user who started the operation. The room left under the balance cap derives from the
   * credited customer's balance, so a refusal states it only when this is that customer; when it is
   * unknown or anyone else, the refusal carries no amount. The intents' `limitCheck` always sets it;
   * it stays optional for checks built elsewhere (the rules' unit tests judge the unknown case).
   */
  initiatorUserId?: string;
}

/** Which limits version judged the operation (worth keeping with the intent). */
export interface LimitVerdict {
  limitsVersion: number;
}

/** How a credit held for a payee stands in the ledger. */
export type IncomingOutcome = 'APPLIED' | 'PENDING' | 'VOID';

/**
 * What `holdAtConfirm` needs from the ledger to check the credited customer's balance cap under
 * that customer's lock (the orchestrator's ledger client behind it).
 */
export interface PayeeLedger {
  /** the ledger intent of the operation being confirmed (kept with its incoming hold) */
  intentId: string;
  /** the credited account's balance now */
  balance(): Promise<number>;
  /**
   * Another held credit's intent: APPLIED once its transaction is committed (the money is in the
   * balance), VOID when it ended without one (it never will be), else PENDING (it still may).
   */
  outcome(intentId: string): Promise<IncomingOutcome>;
}
