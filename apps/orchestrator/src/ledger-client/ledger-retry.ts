import { AppException } from '@mm/errors';

/**
 * Answers of the ledger after which the same request may simply be sent again: nothing was
 * decided (connection refused, shutting down, a twin still running), or the outcome is unknown
 * (timeout, 5xx) and the request carries an idempotency key, so the ledger replays what it did.
 */
const RETRYABLE = new Set([
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_UNAVAILABLE',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_KEY_IN_PROGRESS',
  'INTERNAL_ERROR',
]);

export function isRetryable(error: unknown): boolean {
  if (!(error instanceof AppException)) return false;
  if (error.code === 'LEDGER_INTEGRITY_VIOLATION') return false;
  return RETRYABLE.has(error.code) || error.status >= 500;
}

export interface RetryPolicy {
  /** total tries, the first included */
  attempts: number;
  /** wait before the second try; doubled each time */
  baseDelayMs: number;
}

/**
 * Runs `call` until it answers or fails for good. What reaches the caller after the last try is a
 * stable code: the ledger's own business code as it came, or for a bare 5xx UPSTREAM_UNAVAILABLE
 * (a ledger's INTERNAL_ERROR is the ledger's fault, not something our client can act on).
 */
export async function withRetries<T>(policy: RetryPolicy, call: () => Promise<T>): Promise<T> {
  let delay = policy.baseDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isRetryable(error) || attempt >= policy.attempts) throw relayable(error);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

function relayable(error: unknown): unknown {
  if (!(error instanceof AppException)) return error;
  if (error.code === 'INTERNAL_ERROR') return new AppException('UPSTREAM_UNAVAILABLE', 'The ledger could not complete the operation');
  return error;
}
