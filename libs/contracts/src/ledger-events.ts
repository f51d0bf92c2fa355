/**
 * Payloads the ledger publishes on the `ledger-events` queue (outbox relay).
 * Owned by the ledger-wallets service; consumers (partners) read them.
 *
 * The relay publishes the rows of one poll batch as ONE job named `LEDGER_EVENT_BATCH_JOB` whose
 * data is a `LedgerEventBatch` (one Redis script call per batch instead of one per event: the
 * per-job cost was a tenth of the ledger's CPU per confirm). With LEDGER_OUTBOX_BATCH_JOBS=false
 * (and before batching) the ledger publishes one job per event instead, named after its type, job
 * id = the outbox row id; `ledgerEventsOfJob` reads both shapes.
 *
 * Delivery is at least once: the batch's job id is derived from its row ids, so re-publishing the
 * same batch is a no-op on the queue, but a re-publish after a crash may cut the pending rows into
 * other batches. Consumers must be idempotent on `eventId` (the outbox row id).
 */
export const LEDGER_EVENT_TYPES = {
  transactionCompleted: 'transaction.completed',
} as const;

export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[keyof typeof LEDGER_EVENT_TYPES];

/** Type `transaction.completed`: an intent reached SUCCEEDED and its transaction committed. */
export interface TransactionCompletedEvent {
  /** the outbox row id, unique per event */
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

/** Name of the job carrying a batch of events (in outbox order). */
export const LEDGER_EVENT_BATCH_JOB = 'ledger-events.batch';

export interface LedgerEventBatch {
  /** each with its own `type` and `eventId` */
  events: TransactionCompletedEvent[];
}

/**
 * The events a `ledger-events` job carries, in order: the batch's list, or the one event of a
 * single-event job (named after its type). Anything else is `[]`; each element still has to be
 * checked by the consumer before use.
 */
export function ledgerEventsOfJob(job: { name: string; data: unknown }): { type: string; data: unknown }[] {
  if (job.name === LEDGER_EVENT_BATCH_JOB) {
    const events = (job.data as Partial<LedgerEventBatch> | null)?.events;
    if (!Array.isArray(events)) return [];
    return events.map((data: unknown) => ({ type: String((data as { type?: unknown } | null)?.type ?? ''), data }));
  }
  return [{ type: job.name, data: job.data }];
}
