import { applyDecorators } from '@nestjs/common';
import { IsISO8601, Matches, type ValidationOptions } from 'class-validator';

/**
 * The instants the services take from clients and write into cursors: a calendar date or an ISO 8601
 * date-time, years 1000–9999. `IsISO8601({ strict: true })` alone also admits forms PostgreSQL's
 * timestamptz refuses ("2026", "2026-W01-1"), and `Date.parse` far more ("1"): such a value reached
 * the query as a 500 instead of the client's 400.
 */
export const ISO_INSTANT =
  /^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?)?$/;

export function isIsoInstant(value: unknown): value is string {
  return typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
}

/** A DTO field holding an instant (see ISO_INSTANT): a real calendar day, in a form PostgreSQL reads. */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return applyDecorators(IsISO8601({ strict: true }, options), Matches(ISO_INSTANT, options));
}
