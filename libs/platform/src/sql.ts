/** Anything that runs raw SQL the TypeORM way (DataSource, EntityManager, QueryRunner). */
export interface RawQueryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Runs one parameterised statement and returns its rows. TypeORM's postgres driver answers
 * UPDATE/DELETE with `[rows, rowCount]` and everything else with `rows`: this evens that out, so
 * `… RETURNING` reads the same for every statement.
 */
export async function queryRows<T>(db: RawQueryable, text: string, params: unknown[] = []): Promise<T[]> {
  const result = await db.query(text, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
