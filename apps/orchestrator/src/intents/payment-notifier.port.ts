import type { EntityManager } from 'typeorm';

/** One SMS to write into the outbox; `dedupeKey` makes a repeated enqueue a no-op. */
export interface OutboxSms {
  dedupeKey: string;
  to: string;
  body: string;
}

/**
 * The SMS outbox as the money flow needs it: rows written inside the caller's transaction (the
 * one that records the payment's success), delivered later by the outbox relay, at least once.
 */
export interface PaymentNotifierPort {
  enqueue(m: EntityManager, messages: OutboxSms[]): Promise<void>;
}

export const PAYMENT_NOTIFIER = Symbol('PAYMENT_NOTIFIER');
