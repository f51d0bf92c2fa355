import { ERROR_CATALOG, type ErrorCode } from './error-codes';

/** One faulty field of a VALIDATION_ERROR (`errors[]` of the error body). */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * The only exception domain code throws. The filter turns it into the platform error body;
 * the HTTP status comes from the catalogue unless a caller relays another service's status.
 */
export class AppException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      status?: number;
      /** what went wrong underneath (a refused connection…): logged with the 5xx, never sent */
      cause?: unknown;
    },
  ) {
    super(message ?? ERROR_CATALOG[code].message, details?.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'AppException';
    this.status = details?.status ?? ERROR_CATALOG[code].status;
  }

  get errors(): FieldError[] | undefined {
    return this.details?.errors;
  }
}
