/**
 * The one definition of what counts against a limit window, shared by the limits check
 * (LimitsService) and the staff's display of a person's usage (backoffice people), so the two can
 * never count differently: settled usage plus live holds, since the start of the day or month in
 * the limits' time zone, up to `now`.
 *
 * Both take SQL expressions (a placeholder such as `$4::timestamptz`, or `now()`) and give SQL text.
 */

/** `day_start` and `month_start` of `now` in the time zone `timezone`. */
export function windowBoundsSql(now: string, timezone: string): string {
  return `SELECT date_trunc('day', ${now} AT TIME ZONE ${timezone}) AT TIME ZONE ${timezone} AS day_start,
                date_trunc('month', ${now} AT TIME ZONE ${timezone}) AT TIME ZONE ${timezone} AS month_start`;
}

/** A usage row `u` that counts in the month window of bounds `b`. */
export function countedUsageSql(now: string): string {
  return `u.occurred_at >= b.month_start AND u.occurred_at <= ${now}
            AND (u.status = 'SETTLED' OR (u.status = 'HELD' AND u.held_until > ${now}))`;
}
