import type { Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { RetryPolicy } from './ledger-retry';

/**
 * Helpers for the ledger clients that forward the staff member's own access token besides the
 * service key (compliance audits and checks, reconciliation, staff corrections and holds), so that the ledger verifies it again
 * and records the officer rather than the orchestrator.
 */

/** A single try: withRetries still maps the ledger's bare 500 to 502 UPSTREAM_UNAVAILABLE. */
export const ONCE: RetryPolicy = { attempts: 1, baseDelayMs: 0 };

const TOKEN_FAULTS: ReadonlySet<string> = new Set(['TOKEN_INVALID', 'OPERATOR_TOKEN_REQUIRED']);

/** Request options carrying the staff member's access token. */
export const bearer = (accessToken: string) => ({ headers: { authorization: `Bearer ${accessToken}` } });

/**
 * The ledger refusing as missing or invalid a token the access guard here accepted
 * (TOKEN_INVALID, OPERATOR_TOKEN_REQUIRED) means the two services disagree on auth's keys, issuer
 * or audience: the platform's fault, not the officer's, so 502 UPSTREAM_UNAVAILABLE, logged at
 * ERROR with the ledger's code. (The ledger refusing the orchestrator's own service credential is
 * mapped the same way by InternalHttpClient, for every upstream.) An expired token (it lapsed in
 * between) and the ledger's role refusal are relayed as they are.
 */
export async function relayOperatorTokenFaults<T>(logger: Logger, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppException && TOKEN_FAULTS.has(error.code)) {
      logger.error(
        { code: error.code, status: error.status },
        "the ledger refused an access token the orchestrator accepted: check the ledger's auth settings",
      );
      throw new AppException('UPSTREAM_UNAVAILABLE', 'The ledger could not verify the access token');
    }
    throw error;
  }
}
