import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { LedgerEventBatch } from '@mm/contracts';
import { bullOptions } from '@mm/platform';
import type { LedgerWalletsConfig } from '../ledger-wallets.config';

/** What both relay loops read of an outbox row. */
export interface OutboxRow {
  id: string;
  event_type: string;
  payload: Record<string, unknown>;
}

/** How long one add (or count) may take before the poll gives up and the rows wait for the next one. */
export const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * A consumer that crashes mid-job must get the events again (BullMQ counts a stalled job as an attempt),
 * and finished jobs must not pile up in Redis: the outbox row, not the queue, is the durable record.
 * A completed job is kept only to turn a re-add of the same rows into a no-op, which matters for
 * the moments between an add and its mark: an hour, and at most KEPT_EVENTS events' worth of jobs.
 */
const KEPT_EVENTS = 100_000;

export function jobOptions(eventsPerJob: number) {
  return {
    attempts: 20,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 3_600, count: Math.ceil(KEPT_EVENTS / eventsPerJob) },
    removeOnFail: { age: 7 * 86_400 },
  } as const;
}

/** The rows as one batch, in order; the row's event_type is the event's type even if a payload ever lacked the field. */
export function batchOf(rows: OutboxRow[]): LedgerEventBatch {
  const events = rows.map((r) => (r.payload.type === r.event_type ? r.payload : { ...r.payload, type: r.event_type }));
  return { events } as unknown as LedgerEventBatch;
}

/** The same rows give the same id (no ':' — BullMQ refuses it in custom ids). */
export function batchJobId(ids: string[]): string {
  return `batch-${createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 40)}`;
}

/** A producer-only queue, opened on first use; a connection error surfaces in the failing call, never as a crash. */
export function openQueue(name: string, config: LedgerWalletsConfig): Queue {
  const queue = new Queue(name, bullOptions(config));
  // A connection error is reported by the failing add(); the listener keeps it from crashing the process.
  queue.on('error', () => undefined);
  return queue;
}
