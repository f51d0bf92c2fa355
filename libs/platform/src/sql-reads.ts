import { type RawQueryable, queryRows } from './sql';

/**
 * One read a module owns, not yet run: a single SELECT whose parameters are numbered from `$1`, its
 * text a constant of the code (sent as a prepared statement, see QueryOptions.prepared).
 */
export interface SqlRead {
  text: string;
  params: unknown[];
}

/** Column names of the riding values; no table of ours has a column starting with two underscores. */
const PREFIX = '__along_';

/**
 * Runs a module's read with small values of other modules riding along in the SAME statement: one
 * round trip where there were two. `along` maps a plain lower-case name to a scalar SQL expression
 * without parameters (a subquery answering one value, e.g. the configuration versions in force).
 * Answers the read's rows as it would alone (the same columns, parsed the same way; an ORDER BY of
 * the read is not promised to survive the wrapping, so use it for reads of one row or of rows in no
 * order) and each value, which is there even when the read finds nothing.
 */
export async function readAlong<T, K extends string>(
  db: RawQueryable,
  read: SqlRead,
  along: Record<K, string>,
): Promise<{ rows: T[]; values: Record<K, unknown> }> {
  const names = Object.keys(along) as K[];
  for (const name of names) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`readAlong: ${name} is not a plain lower-case name`);
  }
  const values = names.map((name) => `(${along[name]}) AS ${PREFIX}${name}`).join(', ');
  const rows = await queryRows<Record<string, unknown>>(
    db,
    `SELECT ${values}, r.* FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT true AS ${PREFIX}found, x.* FROM (${read.text}) AS x) AS r ON true`,
    read.params,
    { prepared: true },
  );
  const found = rows
    .filter((row) => row[`${PREFIX}found`] === true)
    .map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !column.startsWith(PREFIX))) as T);
  const answered = Object.fromEntries(names.map((name) => [name, rows[0]?.[`${PREFIX}${name}`]])) as Record<K, unknown>;
  return { rows: found, values: answered };
}
