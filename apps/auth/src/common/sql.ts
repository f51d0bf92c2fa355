import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs one parameterised statement and returns its rows. TypeORM's postgres driver answers
 * UPDATE/DELETE with `[rows, rowCount]` and everything else with `rows`: this evens that out.
 */
export async function sql<T>(db: DataSource | EntityManager, text: string, params: unknown[] = []): Promise<T[]> {
  const result: unknown = await db.query(text, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

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
