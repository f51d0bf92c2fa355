import { createHash } from 'node:crypto';

/** Anything that runs raw SQL the TypeORM way (DataSource, EntityManager, QueryRunner). */
export interface RawQueryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

export interface QueryOptions {
  /**
   * Send the statement NAMED, as a prepared statement of the connection whose name derives from its
   * text: PostgreSQL parses and plans it once per connection and then reuses the plan, where an
   * unnamed statement is parsed and planned on every execution (for the payment path's large CTE
   * statements, most of their cost: docs/performance.md "Round trips per flow (2026-11-29)"). Only
   * for a text that is a constant of the code, never built from data: each distinct text stays
   * prepared on every pooled connection for the connection's life. Ignored without parameters.
   */
  prepared?: boolean;
}

/**
 * Runs one parameterised statement and returns its rows. TypeORM's postgres driver answers
 * UPDATE/DELETE with `[rows, rowCount]` and everything else with `rows`: this evens that out, so
 * `… RETURNING` reads the same for every statement.
 */
export async function queryRows<T>(db: RawQueryable, text: string, params: unknown[] = [], options: QueryOptions = {}): Promise<T[]> {
  // TypeORM hands its query argument to pg's Client#query untouched, and pg takes a query config
  // object there as well as a text: the name travels through (the cast is only TypeORM's typing).
  const query = options.prepared && params.length > 0 ? ({ name: statementName(text), text } as unknown as string) : text;
  const result = await db.query(query, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** The prepared statement's name: a digest of its text (pg refuses one name for two texts on a connection). */
export function statementName(text: string): string {
  return `mm_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
