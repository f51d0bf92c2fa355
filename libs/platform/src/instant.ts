import { ValidateBy, type ValidationOptions, buildMessage, isISO8601 } from 'class-validator';

/**
 * The instants the services take from clients and write into cursors: a calendar date or an ISO 8601
 * date-time, years 1000–9999. `IsISO8601({ strict: true })` alone also admits forms PostgreSQL's
 * timestamptz refuses ("2026", "2026-W01-1"), and `Date.parse` far more ("1", and "2026-02-30",
 * which it rolls over to 2 March): such a value reached the query as a 500 instead of the client's
 * 400. The form is checked by the pattern, the calendar day by the strict ISO 8601 check.
 */
export const ISO_INSTANT =
  /^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?)?$/;

export function isIsoInstant(value: unknown): value is string {
  return typeof value === 'string' && ISO_INSTANT.test(value) && isISO8601(value, { strict: true });
}

/**
 * A DTO field holding an instant (`isIsoInstant`): one rule, so a bad value always answers the field
 * code INVALID_ISO8601 (as IsISO8601 did) and a message that does not quote the pattern.
 */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIso8601',
      validator: {
        validate: (value) => isIsoInstant(value),
        defaultMessage: buildMessage((each) => `${each}$property must be an ISO 8601 date or date-time (years 1000-9999)`, options),
      },
    },
    options,
  );
}
