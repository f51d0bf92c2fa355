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
