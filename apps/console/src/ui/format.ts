/** Money is an integer in the smallest unit (XAF has no minor unit): shown with grouping, never as a float. */
export function money(amount: number | string | null | undefined, currency?: string): string {
  if (amount === null || amount === undefined || amount === '') return '';
  const text = String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return currency ? `${text}\u00a0${currency}` : text;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A civil day (YYYY-MM-DD) in West Africa Time (UTC+1, the CEMAC zone's, no daylight saving): 0 today, -1 yesterday. */
export function westAfricaDay(daysFromToday = 0): string {
  return new Date(Date.now() + 3_600_000 + daysFromToday * 86_400_000).toISOString().slice(0, 10);
}
