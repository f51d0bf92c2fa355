import { applyDecorators } from '@nestjs/common';
import { IsString, Matches, ValidateBy } from 'class-validator';
import { storedLength } from '../../common/approval-reason';

/** The bounds of `orchestrator.customer_status_events.reason` (CHECK char_length(reason) BETWEEN 1 AND 500). */
export const STATUS_TEXT_MAX = 500;

/**
 * The words kept with a status change (a freeze's reason or note): 1 to 500 characters as the
 * events table counts them (code points, `storedLength`; class-validator's MaxLength leaves out
 * U+FE0F, so 300 "❤️" passed it and broke the CHECK after auth had disabled the user), not blank.
 * Anything else is 400 VALIDATION_ERROR with the given field code.
 */
export function StatusText(code: string): PropertyDecorator {
  const context = { code };
  return applyDecorators(
    IsString({ context }),
    ValidateBy(
      {
        name: 'statusTextLength',
        validator: {
          validate: (value: unknown) => typeof value === 'string' && storedLength(value) >= 1 && storedLength(value) <= STATUS_TEXT_MAX,
          defaultMessage: () => `must be 1 to ${STATUS_TEXT_MAX} characters`,
        },
      },
      { context },
    ),
    Matches(/\S/, { message: 'must not be blank', context }),
  );
}
