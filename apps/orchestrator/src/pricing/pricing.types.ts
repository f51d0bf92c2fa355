import type { Currency, OperationType } from '../common/operation-type';

export interface QuoteRequest {
  type: OperationType;
  /** integer, smallest currency unit, ≥ 1 */
  amount: number;
  currency: Currency;
  /**
   * The intent's idempotencyKey. A create retried with the same key gets the same quote back;
   * the same key with other terms → 422 IDEMPOTENCY_KEY_CONFLICT.
   */
  operationId?: string;
}

/** The fee and commission of an operation under one grid version. */
export interface Pricing {
  /** charged to the payer, credited to FEE_COLLECTION */
  fee: number;
  /** paid from TREASURY to the agent commission account (0 when no grid applies) */
  commission: number;
  /** the `pricing` configuration version these numbers come from */
  gridVersion: number;
}

/** A quote given at intent creation (stored; `quoteId` is what the intent keeps). */
export interface Quote extends Pricing {
  quoteId: string;
  operationId: string | null;
  type: OperationType;
  amount: number;
  currency: Currency;
  createdAt: string;
  /** after this instant, confirm prices with the grid then in force */
  expiresAt: string;
}

/**
 * Which price a confirm charges:
 * - QUOTE_HONOURED: the quoted fee (same grid, or a newer grid that is not cheaper);
 * - ACTIVE_GRID_LOWER: the grid changed in the payer's favour, the lower fee applies;
 * - QUOTE_EXPIRED: the quote outlived its validity, the grid in force applies whatever it says.
 */
export type ChargeRule = 'QUOTE_HONOURED' | 'ACTIVE_GRID_LOWER' | 'QUOTE_EXPIRED';

/** What confirm charges: put `fee` and `commission` in the executionContext. Decided once per quote. */
export interface Charge extends Pricing {
  quoteId: string;
  rule: ChargeRule;
  quoted: Pricing;
  decidedAt: string;
}
