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
 * Runs writes whose loss in a *database* crash is harmless (a session a user simply opens again, a
 * PIN attempt counter) without waiting for the WAL flush: `synchronous_commit = off` for this
 * transaction only. Never for revocations, PIN changes or anything a client is told is durable.
 */
export function relaxedWrite<T>(db: DataSource, work: (m: EntityManager) => Promise<T>): Promise<T> {
  return db.transaction(async (m) => {
    await m.query(`SET LOCAL synchronous_commit = off`);
    return work(m);
  });
}
