/** Milliseconds from `now` until the next `HH:MM` UTC (strictly in the future). */
export function msUntilNextDailyRun(timeUtc: string, now: Date = new Date()): number {
  const [hh, mm] = timeUtc.split(':').map(Number);
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hh, mm, 0, 0));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}
