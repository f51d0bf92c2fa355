import { AppException } from '@mm/errors';

/** What a refused caller is told to wait before retrying (the `Retry-After` header, seconds). */
export const RETRY_AFTER_SECONDS = 1;

/** A 503 that tells the caller when to come back; the message says whether anything was done. */
export function retryLater(message: string): AppException {
  return new AppException('SERVICE_UNAVAILABLE', message, { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } });
}

export const AT_CAPACITY = 'The ledger is at capacity: the request was not started; retry after the Retry-After delay';
export const SHUTTING_DOWN = 'The ledger is shutting down: the request was not started; retry after the Retry-After delay';

export interface SessionGateLimits {
  /** sessions (pooled connections) in use at once */
  capacity: number;
  /** requests allowed to wait for a session; one more is refused at once */
  queueLimit: number;
  /** longest wait for a session before the request is refused */
  waitMs: number;
}

interface Waiter {
  admit(): void;
  refuse(error: AppException): void;
  timer: NodeJS.Timeout;
}

/**
 * Admission to the ledger's database, first come first served: every session (LedgerDb.withSession)
 * and every plain query made outside a session (LedgerDb.query) waits here for a slot.
 *
 * Without it, a burst larger than the pool queued inside the pg pool, whose only bound was its
 * connection timeout: past it the request failed with the driver's "timeout exceeded when trying
 * to connect", indistinguishable from a database outage, and under a busy CPU a quarter of a burst
 * of transfers failed that way. Here the wait is ours and deliberate: at most `queueLimit` requests
 * wait, each at most `waitMs`, and a refusal is a 503 with Retry-After given BEFORE the request
 * touched the database, so the caller knows nothing was done and may send it again (with its
 * idempotency key, as always). `capacity` stays below the pool size so that the health check and
 * the reads an admitted session makes (which do not queue again: they would wait on themselves)
 * always find a connection.
 *
 * `refuseWaiting()` (shutdown) refuses everything waiting at that moment, so the drain does not sit
 * out their waits. What comes after is admitted as usual: the listener stops accepting requests
 * soon after, and the background jobs (outbox relay, sweeps) must finish their cycle until they are
 * stopped, later in the shutdown.
 */
export class SessionGate {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly limits: SessionGateLimits,
    private readonly observe: { waiting?(delta: number): void; refused?(reason: 'queue_full' | 'wait_timeout' | 'shutdown'): void } = {},
  ) {}

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with the release of the session slot once one is free; rejects with a 503 when refused. */
  acquire(): Promise<() => void> {
    if (this.active < this.limits.capacity && this.queue.length === 0) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.queue.length >= this.limits.queueLimit) return this.refuse('queue_full', AT_CAPACITY);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => resolve(this.releaser()),
        refuse: reject,
        timer: setTimeout(() => {
          this.remove(waiter);
          this.observe.refused?.('wait_timeout');
          reject(retryLater(AT_CAPACITY));
        }, this.limits.waitMs),
      };
      this.queue.push(waiter);
      this.observe.waiting?.(1);
    });
  }

  /** Refuses every request waiting now (the process is stopping). */
  refuseWaiting(): void {
    for (const waiter of this.queue.splice(0)) {
      clearTimeout(waiter.timer);
      this.observe.waiting?.(-1);
      this.observe.refused?.('shutdown');
      waiter.refuse(retryLater(SHUTTING_DOWN));
    }
  }

  private refuse(reason: 'queue_full', message: string): Promise<never> {
    this.observe.refused?.(reason);
    return Promise.reject(retryLater(message));
  }

  private remove(waiter: Waiter): void {
    const i = this.queue.indexOf(waiter);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.observe.waiting?.(-1);
    }
  }

  /** A release that works once: the slot goes straight to the oldest waiter, if any. */
  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) {
        clearTimeout(next.timer);
        this.observe.waiting?.(-1);
        next.admit();
      } else {
        this.active--;
      }
    };
  }
}
