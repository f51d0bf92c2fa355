import { ValidateBy, type ValidationOptions, buildMessage } from 'class-validator';
import { isReportDay } from '../report-day';

/** A `YYYY-MM-DD` day that exists, years 2000 to 9999 (field code INVALID_DATE). */
export function IsReportDay(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isReportDay',
      validator: {
        validate: (value) => isReportDay(value),
        defaultMessage: buildMessage((each) => `${each}$property must be a calendar day YYYY-MM-DD (years 2000-9999)`, options),
      },
    },
    { ...options, context: { code: 'INVALID_DATE' } },
  );
}

export const REPORT_DAY_PATTERN = '^[2-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$';
