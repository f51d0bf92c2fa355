/**
 * Payloads the ledger publishes on the `ledger-events` queue (outbox relay).
 * Owned by the ledger-wallets service; consumers (partners) read them.
 *
 * Delivery is at least once: the BullMQ job id is the outbox row id (`eventId`), so a re-publish
 * of the same row is a no-op on the queue, and consumers must still be idempotent on `eventId`.
 */
export const LEDGER_EVENT_TYPES = {
  transactionCompleted: 'transaction.completed',
} as const;

export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[keyof typeof LEDGER_EVENT_TYPES];

/** Job name `transaction.completed`: an intent reached SUCCEEDED and its transaction committed. */
export interface TransactionCompletedEvent {
  /** outbox row id = BullMQ job id */
  eventId: string;
  type: 'transaction.completed';
  /** ISO 8601 UTC, the transaction's completed_at */
  occurredAt: string;
  transactionId: string;
  /** readable reference, e.g. MMPTX2611220A1B2C3 */
  referenceId: string;
  intentId: string;
  intentType: 'TRANSFER' | 'CASH_IN' | 'CASH_OUT';
  /** integers in the currency's smallest unit */
  amount: number;
  fee: number;
  commission: number;
  currency: string;
  sourceAccountId: string;
  destinationAccountId: string;
  /** the QR the intent locked, when one was used (partners match orders by it) */
  qrToken: string | null;
  createdBy: string;
  typeCode: string;
  agentId: string | null;
  correlationId: string | null;
}
