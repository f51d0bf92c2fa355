import { type RawQueryable, queryRows } from './sql';

/**
 * One write a module owns, not yet run: a single INSERT/UPDATE/DELETE whose parameters are numbered
 * from `$1` within `text`, a constant of the code (it is sent as a prepared statement, see
 * QueryOptions.prepared; values travel as parameters). A module hands it out so that a caller can run it alone (`runWrite`) or
 * with the writes of other modules as one statement (`runWritesTogether`), keeping the SQL in the
 * module that owns the table.
 */
export interface SqlWrite {
  text: string;
  params: unknown[];
}

/** Runs one write alone and returns its rows (`… RETURNING`). */
export function runWrite<T>(db: RawQueryable, write: SqlWrite): Promise<T[]> {
  return queryRows<T>(db, write.text, write.params, { prepared: true });
}

/**
 * Runs several writes as ONE statement: each becomes a data-modifying CTE, so together they cost
 * one round trip and, outside a transaction, one commit, and either all happen or none does.
 * PostgreSQL runs them on one snapshot, in no promised order, and none sees another's rows: only
 * writes that do not depend on one another belong together (different tables, or rows that are
 * independent). A write may still name an EARLIER write of the list (in the given order) to read
 * what it returned, e.g. `INSERT … SELECT … WHERE EXISTS (SELECT 1 FROM quote)`: that is how a write
 * happens only when another one did. Answers the rows `RETURNING` of the write named by `answer`.
 */
export function runWritesTogether<T>(db: RawQueryable, writes: Record<string, SqlWrite>, answer: string): Promise<T[]> {
  const names = Object.keys(writes);
  if (!names.includes(answer)) throw new Error(`runWritesTogether: no write named ${answer}`);
  const params: unknown[] = [];
  const ctes = names.map((name) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`runWritesTogether: ${name} is not a plain lower-case name`);
    const { text, params: own } = writes[name];
    const offset = params.length;
    params.push(...own);
    // `$n` only ever stands for a parameter in these statements (no dollar-quoted strings).
    const renumbered = text.replace(/\$(\d+)/g, (_, n: string) => {
      const index = Number(n);
      if (index < 1 || index > own.length) throw new Error(`runWritesTogether: ${name} uses $${n} but has ${own.length} parameters`);
      return `$${index + offset}`;
    });
    return `${name} AS (${renumbered})`;
  });
  return queryRows<T>(db, `WITH ${ctes.join(',\n')}\nSELECT * FROM ${answer}`, params, { prepared: true });
}
