import { applyDecorators } from '@nestjs/common';
import { IsString, Matches, ValidateBy } from 'class-validator';

/** The bounds of `orchestrator.approval_requests.reason` (CHECK length(reason) BETWEEN 3 AND 500). */
export const APPROVAL_REASON_MIN = 3;
export const APPROVAL_REASON_MAX = 500;

/**
 * A text's length as PostgreSQL's `length()` counts it in a UTF-8 database: code points. Not
 * class-validator's MinLength/MaxLength, whose count leaves out emoji presentation selectors
 * (U+FE0E, U+FE0F): 500 "❤️" pass MaxLength(500) and are 1 000 characters to the CHECK.
 */
export function storedLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** 3 to 500 characters as the table counts them, and not only blanks. */
export function isApprovalReason(value: unknown): value is string {
  return typeof value === 'string' && /\S/.test(value) && reasonLengthFits(value);
}

function reasonLengthFits(value: string): boolean {
  const length = storedLength(value);
  return length >= APPROVAL_REASON_MIN && length <= APPROVAL_REASON_MAX;
}

/**
 * A reason that becomes a maker-checker request's `reason`: 3 to 500 characters as the table counts
 * them, not blank. Anything else is 400 VALIDATION_ERROR with the field code INVALID_REASON, before
 * the engine is asked (the CHECK would otherwise answer a 500).
 */
export function ApprovalReason(): PropertyDecorator {
  const context = { code: 'INVALID_REASON' };
  return applyDecorators(
    IsString({ context }),
    ValidateBy(
      {
        name: 'approvalReasonLength',
        validator: {
          validate: (value: unknown) => typeof value === 'string' && reasonLengthFits(value),
          defaultMessage: () => `must be ${APPROVAL_REASON_MIN} to ${APPROVAL_REASON_MAX} characters`,
        },
      },
      { context },
    ),
    Matches(/\S/, { message: 'must not be blank', context }),
  );
}
