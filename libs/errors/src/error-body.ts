import type { FieldError } from './app-exception';

/** The error body of every service (docs/partners.md "7. All error codes"). `errors` only on VALIDATION_ERROR. */
export interface ErrorBody {
  code: string;
  message: string;
  errors?: FieldError[];
  requestId: string;
}
