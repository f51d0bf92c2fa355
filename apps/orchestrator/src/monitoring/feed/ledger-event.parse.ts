import type { TransactionCompletedEvent } from '@mm/contracts';
import { OPERATION_KINDS, type OperationKind } from '../rules/monitoring-rule';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The fields of a `transaction.completed` event the feed stores, checked. */
export type FeedEvent = Pick<
  TransactionCompletedEvent,
  'eventId' | 'occurredAt' | 'transactionId' | 'referenceId' | 'amount' | 'fee' | 'currency' | 'sourceAccountId' | 'destinationAccountId'
> & { intentType: OperationKind };

/** Why an event was not stored (kept in `monitoring_feed_rejects.reason`; docs/monitoring.md#what-the-feed-refuses). */
export const REJECT_REASONS = [
  'NOT_AN_OBJECT',
  'NOT_TRANSACTION_COMPLETED',
  'INVALID_ID',
  'UNKNOWN_INTENT_TYPE',
  'INVALID_AMOUNT',
  'INVALID_CURRENCY',
  'INVALID_REFERENCE',
  'INVALID_TIME',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export type ParsedFeedEvent = { event: FeedEvent } | { reject: RejectReason };

export function parseFeedEvent(data: unknown): ParsedFeedEvent {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { reject: 'NOT_AN_OBJECT' };
  const e = data as Record<string, unknown>;
  const uuid = (v: unknown) => typeof v === 'string' && UUID.test(v);
  const money = (v: unknown, min: number) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
  if (e.type !== 'transaction.completed') return { reject: 'NOT_TRANSACTION_COMPLETED' };
  if (!uuid(e.eventId) || !uuid(e.transactionId) || !uuid(e.sourceAccountId) || !uuid(e.destinationAccountId)) {
    return { reject: 'INVALID_ID' };
  }
  if (!(OPERATION_KINDS as readonly unknown[]).includes(e.intentType)) return { reject: 'UNKNOWN_INTENT_TYPE' };
  if (!money(e.amount, 1) || !money(e.fee ?? 0, 0)) return { reject: 'INVALID_AMOUNT' };
  if (typeof e.currency !== 'string' || !/^[A-Z]{3}$/.test(e.currency)) return { reject: 'INVALID_CURRENCY' };
  if (typeof e.referenceId !== 'string' || e.referenceId.length < 1 || e.referenceId.length > 64) return { reject: 'INVALID_REFERENCE' };
  if (typeof e.occurredAt !== 'string' || Number.isNaN(Date.parse(e.occurredAt))) return { reject: 'INVALID_TIME' };
  return {
    event: {
      eventId: (e.eventId as string).toLowerCase(),
      occurredAt: new Date(e.occurredAt).toISOString(),
      transactionId: (e.transactionId as string).toLowerCase(),
      referenceId: e.referenceId,
      intentType: e.intentType as OperationKind,
      amount: e.amount as number,
      fee: (e.fee as number | undefined) ?? 0,
      currency: e.currency,
      sourceAccountId: (e.sourceAccountId as string).toLowerCase(),
      destinationAccountId: (e.destinationAccountId as string).toLowerCase(),
    },
  };
}
