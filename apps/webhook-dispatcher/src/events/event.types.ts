import type { AttemptErrorCode } from '../delivery/attempt-result';

export type EventStatus = 'pending' | 'delivered' | 'failed' | 'held';

/** An event as the dispatcher recorded it at first dispatch. */
export interface StoredEvent {
  id: string;
  integrationId: string;
  eventType: string;
  /** the serialised envelope, sent byte-identical on every attempt */
  body: string;
  status: EventStatus;
  /** the event's latest delivery run (0: the first dispatch, n: the n-th resend); only its job may deliver */
  run: number;
}

/** A delivery run begun by a resend: enough to put the event back if its job cannot be queued. */
export interface ResendClaim {
  eventId: string;
  run: number;
  previousStatus: EventStatus;
  attemptCount: number;
}

export interface AttemptRecord {
  eventId: string;
  /** the delivery run making the attempt: the event's state moves only while it is the latest */
  run: number;
  jobId: string;
  url: string;
  attemptedAt: Date;
  signedAt: number;
  statusCode?: number;
  error?: string;
  /** why it failed; undefined exactly when it succeeded (the table's check holds them together) */
  errorCode: AttemptErrorCode | undefined;
  latencyMs: number;
  excerpt?: string;
  success: boolean;
  /** the event's state once this attempt is recorded, unless it is held (below) */
  nextStatus: Exclude<EventStatus, 'held'>;
  /**
   * This attempt disabled the endpoint: the event is held instead, but only while the endpoint of
   * `integrationId` is still not enabled (an enable committed meanwhile may have replayed already).
   */
  hold: boolean;
  integrationId: string;
}

export interface AttemptView {
  attemptNumber: number;
  jobId: string;
  url: string;
  attemptedAt: string;
  signedAt: number;
  statusCode: number | null;
  error: string | null;
  errorCode: AttemptErrorCode | null;
  latencyMs: number;
  responseExcerpt: string | null;
  outcome: 'success' | 'failure';
}

export interface EventView {
  id: string;
  integrationId: string;
  event: string;
  status: EventStatus;
  attemptCount: number;
  resendCount: number;
  createdAt: string;
  receivedAt: string;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
}
