import type { ErrorCode } from '@mm/errors';
import type { AttemptResult } from './webhook-metrics';

/**
 * Why an attempt failed, as the attempt log records it (`errorCode`), codes of the one catalogue.
 * The first three fail before any request leaves: they are attempts all the same (numbered, counted
 * in attemptCount, counted towards disabling the endpoint), or a delivery could fail forever
 * without a trace.
 */
export const ATTEMPT_ERROR_CODES = [
  'WEBHOOK_SECRET_UNREADABLE',
  'WEBHOOK_DNS_FAILED',
  'WEBHOOK_ADDRESS_REFUSED',
  'WEBHOOK_RECEIVER_UNREACHABLE',
  'WEBHOOK_RECEIVER_TIMEOUT',
  'WEBHOOK_RECEIVER_HTTP_ERROR',
] as const satisfies readonly ErrorCode[];

export type AttemptErrorCode = (typeof ATTEMPT_ERROR_CODES)[number];

/** What one attempt produced: a status when the receiver answered, else why not. */
export interface SendResult {
  /** HTTP status when the receiver answered in time */
  statusCode?: number;
  /** why no status came back, for people: `timeout`, `network: <code>`, `dns: <code>`, `refused: <why>`, `secret: <why>` */
  error?: string;
  /** why no status came back, stable (set with `error`) */
  errorCode?: AttemptErrorCode;
  latencyMs: number;
  excerpt?: string;
}

export type AttemptVerdict = { success: true; result: 'success' } | { success: false; errorCode: AttemptErrorCode; result: AttemptResult };

/** The `result` label of webhook_attempt_duration_seconds for each failure. */
const METRIC_RESULT: Record<AttemptErrorCode, AttemptResult> = {
  WEBHOOK_SECRET_UNREADABLE: 'secret_unreadable',
  WEBHOOK_DNS_FAILED: 'dns_error',
  WEBHOOK_ADDRESS_REFUSED: 'refused',
  WEBHOOK_RECEIVER_UNREACHABLE: 'network_error',
  WEBHOOK_RECEIVER_TIMEOUT: 'timeout',
  WEBHOOK_RECEIVER_HTTP_ERROR: 'http_error',
};

/** Success is a 2xx within the timeout; anything else is a failure with its code. */
export function judgeAttempt(result: SendResult): AttemptVerdict {
  const { statusCode } = result;
  if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) return { success: true, result: 'success' };
  const errorCode: AttemptErrorCode =
    statusCode !== undefined ? 'WEBHOOK_RECEIVER_HTTP_ERROR' : (result.errorCode ?? 'WEBHOOK_RECEIVER_UNREACHABLE');
  return { success: false, errorCode, result: METRIC_RESULT[errorCode] };
}
