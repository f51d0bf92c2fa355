/**
 * Delay before retry number `attemptsMade` (1 after the first failure): base, 2×base, 4×base …
 * With the default 30 s base the seven retries wait 30 s, 1, 2, 4, 8, 16 and 32 min (docs/partners.md "5. Webhooks").
 */
export function webhookBackoffMs(baseMs: number, attemptsMade: number): number {
  return baseMs * 2 ** Math.max(0, attemptsMade - 1);
}
