/*
 * What the ledger answers on its statement routes (`GET /v1/internal/adjustments` and
 * `GET /v1/internal/reversals`), read by the orchestrator to build a holder's history. One
 * definition for both sides, so that a field the ledger adds or renames fails to compile in the
 * orchestrator instead of arriving as `undefined`. Amounts are integers in the currency's smallest
 * unit; times are ISO 8601 UTC cut to the millisecond (the keyset of the adjustments list uses them).
 */

/** REVERSAL undoes a whole transaction (`reversalOf` names it); CORRECTION is any other adjustment. */
export const ADJUSTMENT_KINDS = ['REVERSAL', 'CORRECTION'] as const;
export type AdjustmentKind = (typeof ADJUSTMENT_KINDS)[number];

/** An ADJUSTMENT transaction of the ledger as it touched the accounts asked about. */
export interface LedgerAdjustment {
  transactionId: string;
  referenceId: string;
  kind: AdjustmentKind;
  /** the transaction a REVERSAL undoes; null for a CORRECTION */
  reversalOf: { transactionId: string; referenceId: string } | null;
  currency: string;
  /** the adjustment's amount (a reversal: the amount of what it undoes) */
  amount: number;
  /** a reversal: the fee of what it undoes; 0 otherwise */
  fee: number;
  /** credits − debits of the adjustment on the accounts asked about */
  change: number;
  /** the operator's reason, when one was given */
  reason: string | null;
  completedAt: string;
}

/** A reversed transaction and the reversal that undid it (at most one per transaction). */
export interface LedgerReversalLink {
  /** the transaction reversed */
  reversalOf: string;
  /** the reversal */
  transactionId: string;
  referenceId: string;
  completedAt: string;
}
