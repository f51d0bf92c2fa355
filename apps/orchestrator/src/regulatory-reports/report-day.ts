import { PLATFORM_UTC_OFFSET, addCalendarDays, isCalendarDate } from '@mm/contracts';

/**
 * What regulatory reports add to the platform's business day (`@mm/contracts` business-day.ts:
 * bounds, the day of an instant, whether a day is over): the label a report names its day's zone
 * with, the earliest year a report may be asked for, and the run of days the daily job looks at
 * (docs/regulatory-reports.md, "Days").
 */

/** Stored in each daily report's content (`timeZone`), so it must keep reading `UTC+01:00`. */
export const REPORT_TIME_ZONE = `UTC${PLATFORM_UTC_OFFSET}`;

/** The platform holds no operation before this year; refusing earlier days keeps a typo (0202) out of the store. */
export const FIRST_REPORT_YEAR = 2000;

/** A `YYYY-MM-DD` day that exists (not 2026-02-30), years 2000 to 9999. */
export function isReportDay(value: unknown): value is string {
  return isCalendarDate(value) && Number(value.slice(0, 4)) >= FIRST_REPORT_YEAR;
}

/** The `count` days that end with `last`, oldest first (`count` ≥ 1). */
export function daysEndingOn(last: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addCalendarDays(last, i - count + 1));
}
