import type { SqlWrite } from '@mm/platform';

/** One SMS to write into the outbox; `dedupeKey` makes a repeated enqueue a no-op. */
export interface OutboxSms {
  dedupeKey: string;
  to: string;
  body: string;
}

/**
 * The SMS outbox as the money flow needs it: the write of its rows, run by the caller in the same
 * statement that records the payment's success; the outbox relay delivers them later, at least once.
 */
export interface PaymentNotifierPort {
  enqueueWrite(messages: OutboxSms[]): SqlWrite;
}

export const PAYMENT_NOTIFIER = Symbol('PAYMENT_NOTIFIER');
