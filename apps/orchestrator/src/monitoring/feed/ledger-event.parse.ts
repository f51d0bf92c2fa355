import type { TransactionCompletedEvent } from '@mm/contracts';
import { OPERATION_KINDS, type OperationKind } from '../rules/monitoring-rule';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The fields of a `transaction.completed` event the feed stores, checked; null for anything else. */
export type FeedEvent = Pick<
  TransactionCompletedEvent,
  'eventId' | 'occurredAt' | 'transactionId' | 'referenceId' | 'amount' | 'fee' | 'currency' | 'sourceAccountId' | 'destinationAccountId'
> & { intentType: OperationKind };

export function parseFeedEvent(data: unknown): FeedEvent | null {
  if (typeof data !== 'object' || data === null) return null;
  const e = data as Record<string, unknown>;
  const uuid = (v: unknown) => typeof v === 'string' && UUID.test(v);
  const money = (v: unknown, min: number) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
  if (e.type !== 'transaction.completed') return null;
  if (!uuid(e.eventId) || !uuid(e.transactionId) || !uuid(e.sourceAccountId) || !uuid(e.destinationAccountId)) return null;
  if (!(OPERATION_KINDS as readonly unknown[]).includes(e.intentType)) return null;
  if (!money(e.amount, 1) || !money(e.fee ?? 0, 0)) return null;
  if (typeof e.currency !== 'string' || !/^[A-Z]{3}$/.test(e.currency)) return null;
  if (typeof e.referenceId !== 'string' || e.referenceId.length < 1 || e.referenceId.length > 64) return null;
  if (typeof e.occurredAt !== 'string' || Number.isNaN(Date.parse(e.occurredAt))) return null;
  return {
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
  };
}
