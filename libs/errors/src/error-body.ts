import type { FieldError } from './app-exception';

/** The error body of every service (spec/README.md). `errors` only on VALIDATION_ERROR. */
export interface ErrorBody {
  code: string;
  message: string;
  errors?: FieldError[];
  requestId: string;
}
