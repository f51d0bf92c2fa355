/**
 * The platform's business day: the one definition of "a day" for everything that counts days
 * (float reconciliation, settlement statements, regulatory reports). The six CEMAC countries keep
 * West Africa Time, UTC+01:00 all year with no daylight saving, so a day is a fixed offset from
 * UTC and needs no time-zone database: 2026-11-20 runs from 2026-11-19T23:00Z (included) to
 * 2026-11-20T23:00Z (excluded). docs/reconciliation.md, "Business days".
 */

/** West Africa Time, the offset of every business day unless a caller names another. */
export const PLATFORM_UTC_OFFSET = '+01:00';

/** An offset from UTC written `±HH:MM` (from −14:59 to +14:59: every offset in use, and no more). */
export const UTC_OFFSET_PATTERN = /^[+-](0\d|1[0-4]):[0-5]\d$/;

/** A date written `YYYY-MM-DD`; `isCalendarDate` also checks that the day exists. */
export const CALENDAR_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

const DAY_MS = 86_400_000;

/** The instants of one business day: `from` included, `to` excluded (ISO 8601, UTC). */
export interface BusinessDayBounds {
  from: string;
  to: string;
}

export function isUtcOffset(value: unknown): value is string {
  return typeof value === 'string' && UTC_OFFSET_PATTERN.test(value);
}

/**
 * Whether `value` is a day that exists, written `YYYY-MM-DD` with years 0001 to 9999: 2024-02-29
 * is one, 2026-02-29, 2026-04-31, 2026-13-01 and 2026-1-05 are not. Nothing around the date (no
 * time, no spaces) is accepted.
 */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = CALENDAR_DATE_PATTERN.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The offset in milliseconds; a malformed offset is a programming error (callers validate input first). */
function offsetMs(utcOffset: string): number {
  if (!isUtcOffset(utcOffset)) throw new RangeError(`"${utcOffset}" is not a UTC offset (±HH:MM)`);
  const sign = utcOffset.startsWith('-') ? -1 : 1;
  return sign * (Number(utcOffset.slice(1, 3)) * 60 + Number(utcOffset.slice(4, 6))) * 60_000;
}

/** Midnight UTC of a calendar date, in milliseconds (years below 100 are not shifted to 19xx). */
function utcMidnight(date: string): number {
  if (!isCalendarDate(date)) throw new RangeError(`"${date}" is not a calendar date (YYYY-MM-DD)`);
  const d = new Date(0);
  d.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return d.getTime();
}

function dateOfUtcMs(ms: number): string {
  const d = new Date(ms);
  const year = String(d.getUTCFullYear()).padStart(4, '0');
  return `${year}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

/**
 * The instants a business day spans at `utcOffset`: from its first instant (included) to the
 * first instant of the next day (excluded). A period of several days is
 * `{ from: businessDayBounds(first).from, to: businessDayBounds(last).to }`.
 * Throws a RangeError for a date that does not exist or a malformed offset.
 */
export function businessDayBounds(date: string, utcOffset: string = PLATFORM_UTC_OFFSET): BusinessDayBounds {
  const start = utcMidnight(date) - offsetMs(utcOffset);
  return { from: new Date(start).toISOString(), to: new Date(start + DAY_MS).toISOString() };
}

/**
 * The business day an instant falls in at `utcOffset`. A string must carry its zone (`Z` or
 * `±HH:MM`): without one, JavaScript would read it in the server's own zone.
 */
export function businessDayOf(instant: Date | string, utcOffset: string = PLATFORM_UTC_OFFSET): string {
  if (typeof instant === 'string' && !/(Z|[+-]\d{2}:\d{2})$/i.test(instant.trim())) {
    throw new RangeError(`"${instant}" is not an instant with its zone (e.g. 2026-11-20T10:00:00Z)`);
  }
  const ms = instant instanceof Date ? instant.getTime() : Date.parse(instant);
  if (Number.isNaN(ms)) throw new RangeError(`"${String(instant)}" is not an instant`);
  return dateOfUtcMs(ms + offsetMs(utcOffset));
}

/** `date` moved by `days` calendar days (negative: back), across month and year ends. */
export function addCalendarDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`${days} is not a whole number of days`);
  const moved = dateOfUtcMs(utcMidnight(date) + days * DAY_MS);
  if (!isCalendarDate(moved)) throw new RangeError(`${date} moved by ${days} days leaves the years 0001 to 9999`);
  return moved;
}

/** How many calendar days `b` is after `a` (negative when before): 2026-12-31 to 2027-01-01 is 1. */
export function calendarDaysBetween(a: string, b: string): number {
  return Math.round((utcMidnight(b) - utcMidnight(a)) / DAY_MS);
}

/**
 * Whether the whole of `date` is past at `now`, i.e. its last instant at `utcOffset` is behind
 * `now`: today is never over, and a day ends at 23:00 UTC in West Africa Time, not at midnight UTC.
 */
export function isDayOver(date: string, now: Date = new Date(), utcOffset: string = PLATFORM_UTC_OFFSET): boolean {
  return Date.parse(businessDayBounds(date, utcOffset).to) <= now.getTime();
}
