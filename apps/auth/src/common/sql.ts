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

/**
 * The whole seconds a counter row's temporary lock has left by the database's clock (at least 1), NULL
 * when it is not locked: the lock is judged on one clock, whichever process asks.
 */
export function pinLockLeftSec(table = ''): string {
  return `(CASE WHEN ${table}locked_until > now() THEN GREATEST(1, CEIL(EXTRACT(EPOCH FROM ${table}locked_until - now())))::int END)`;
}

/** A counter row (columns prefixed by `table`, e.g. `l.`) that may take an attempt: neither hard-locked nor locked now. */
export function pinNotLocked(table = ''): string {
  return `NOT ${table}hard_locked AND (${table}locked_until IS NULL OR ${table}locked_until <= now())`;
}

/**
 * How long a PIN check reserved and never ended (its process died between the reservation and the
 * outcome) keeps its place among the checks in flight: counted from the latest reservation on the
 * row (`pin_checks_since`). A check takes one scrypt (tens of milliseconds). A check that takes
 * longer all the same (a stalled process) ends with its reservation forgotten and its place perhaps
 * given to another: its outcome is then dropped, nothing counted and no verdict told
 * (`pinCheckForgotten`), so the bound on PINs tried holds however long a check takes.
 */
export const PIN_CHECK_MEMORY_SEC = 60;

/** True when a reservation made at `reservedAt` (a SQL expression) no longer counts among the row's checks in flight. */
export function pinCheckForgotten(reservedAt: string): string {
  return `(${reservedAt}::timestamptz <= now() - make_interval(secs => ${PIN_CHECK_MEMORY_SEC}))`;
}

/** The PIN checks in flight on a counter row (columns prefixed by `table`): the stored number, 0 once forgotten. */
export function pinChecksInFlight(table = ''): string {
  return `(CASE WHEN ${table}pin_checks_since > now() - make_interval(secs => ${PIN_CHECK_MEMORY_SEC}) THEN ${table}pin_checks_in_flight ELSE 0 END)`;
}

/**
 * How many PIN checks may be in flight at once on a row with `failures` counted failures: the attempts
 * left before the lock (so that if every one of them is wrong, no more PINs were tried than the
 * threshold allows), and one past the threshold, once a lock has ended.
 */
export function pinCheckSlots(failures: string, lockAt: string): string {
  return `GREATEST(1, ${lockAt}::int - ${failures})`;
}
