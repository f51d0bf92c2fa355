/**
 * FROM item that turns off the WAL-flush wait for the statement's own (implicit) transaction:
 * `set_config(..., is_local => true)` runs during the statement, and PostgreSQL reads
 * synchronous_commit when it commits that transaction, before local settings are reset. One round
 * trip instead of BEGIN / SET LOCAL / statement / COMMIT.
 *
 * Only for writes whose loss in a *database* crash is harmless: a new session (its tokens are then
 * refused and the user logs in again), the PIN attempt counter. Never for revocations, PIN changes
 * or anything a client is told is durable.
 */
export const RELAXED_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS relaxed_commit`;

/**
 * The PIN lock schedule, in SQL, for the two tables that count failures (auth.users for accounts,
 * auth.unknown_phone_lockouts for phones without one), so both lock alike. `count`: the failure
 * count after this attempt; `lockAt`, `baseSec`: PIN_LOCK_THRESHOLD and PIN_LOCK_BASE_SEC (SQL
 * expressions, usually parameters). The end of the lock this count sets: from the threshold on,
 * baseSec doubled by each failure past it (capped at 2^16 times); NULL below it.
 */
export function pinLockEnd(count: string, lockAt: string, baseSec: string): string {
  return `CASE WHEN ${count} >= ${lockAt}::int
    THEN now() + make_interval(secs => ${baseSec}::double precision * power(2, LEAST(${count} - ${lockAt}::int, 16))) END`;
}

/** A counter row (columns prefixed by `table`, e.g. `l.`) that may take an attempt: neither hard-locked nor locked now. */
export function pinNotLocked(table = ''): string {
  return `NOT ${table}hard_locked AND (${table}locked_until IS NULL OR ${table}locked_until <= now())`;
}
