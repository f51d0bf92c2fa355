/**
 * Days of the regulatory reports. The six CEMAC countries keep West Africa Time, UTC+01:00 all year
 * (no daylight saving), as the limits' `Africa/Douala` does: a report day runs from 00:00 to 24:00
 * there, i.e. from 23:00 UTC the day before to 23:00 UTC (docs/regulatory-reports.md "Days").
 */
export const REPORT_TIME_ZONE = 'UTC+01:00';
const OFFSET_MS = 60 * 60_000;
const DAY_MS = 86_400_000;

/** A calendar day `YYYY-MM-DD` that exists (not 2026-02-30), years 2000 to 9999. */
export const REPORT_DAY = /^([2-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export function isReportDay(value: unknown): value is string {
  if (typeof value !== 'string' || !REPORT_DAY.test(value)) return false;
  return new Date(`${value}T00:00:00.000Z`).toISOString().slice(0, 10) === value;
}

/** The instants [from, to) of a report day, in UTC. */
export function dayWindow(day: string): { from: string; to: string } {
  const start = Date.parse(`${day}T00:00:00.000Z`) - OFFSET_MS;
  return { from: new Date(start).toISOString(), to: new Date(start + DAY_MS).toISOString() };
}

/** The report day an instant falls in. */
export function reportDayOf(instant: Date): string {
  return new Date(instant.getTime() + OFFSET_MS).toISOString().slice(0, 10);
}

/** The day before `day`. */
export function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) - DAY_MS).toISOString().slice(0, 10);
}

/** The `count` days that end with `last`, oldest first (`count` ≥ 1). */
export function daysEndingOn(last: string, count: number): string[] {
  const days = [last];
  while (days.length < count) days.unshift(previousDay(days[0]));
  return days;
}

/** A day is over once its last instant is past in UTC+01:00: the report of today is never final. */
export function isDayOver(day: string, now: Date): boolean {
  return day < reportDayOf(now);
}
