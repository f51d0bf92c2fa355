import type { TransactionCompletedEvent } from '@mm/contracts';
import { isUuid } from '@mm/platform';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/**
 * The fields of `transaction.completed` partners relies on, checked before use: a malformed event
 * (a producer bug) is refused once and logged instead of being retried forever.
 */
export function isTransactionCompleted(data: unknown): data is TransactionCompletedEvent {
  const e = data as Partial<TransactionCompletedEvent> | null;
  return (
    e !== null &&
    typeof e === 'object' &&
    isUuid(e.eventId) &&
    isUuid(e.transactionId) &&
    typeof e.referenceId === 'string' &&
    typeof e.occurredAt === 'string' &&
    ISO.test(e.occurredAt) &&
    Number.isSafeInteger(e.amount) &&
    typeof e.currency === 'string' &&
    typeof e.destinationAccountId === 'string' &&
    (e.qrToken === null || e.qrToken === undefined || typeof e.qrToken === 'string')
  );
}
