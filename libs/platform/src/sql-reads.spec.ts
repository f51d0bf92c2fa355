import { statementName } from './sql';
import { readAlong } from './sql-reads';

/** Records the one statement it is given and answers `rows`. */
function capture(rows: unknown[]) {
  const seen: Array<{ text: string; params: unknown[]; name?: string }> = [];
  // A prepared statement arrives as pg's query config ({ name, text }) where TypeORM takes a text.
  const query = async (sent: string | { name: string; text: string }, params: unknown[] = []) => {
    seen.push(typeof sent === 'string' ? { text: sent, params } : { text: sent.text, params, name: sent.name });
    return rows;
  };
  return { seen, db: { query: query as (text: string, params?: unknown[]) => Promise<unknown> } };
}

describe('readAlong', () => {
  const read = { text: 'SELECT * FROM t WHERE id = $1', params: ['id-1'] };

  it('sends one statement with the read as a lateral subquery, its parameters untouched, and the values beside it', async () => {
    const { seen, db } = capture([{ __along_config: { a: 1 }, __along_found: true, id: 'id-1', name: 'n' }]);
    const { rows, values } = await readAlong(db, read, { config: 'SELECT 1' });
    expect(seen).toHaveLength(1);
    expect(seen[0].text).toBe(
      'SELECT (SELECT 1) AS __along_config, r.* FROM (SELECT 1) AS one LEFT JOIN LATERAL ' +
        '(SELECT true AS __along_found, x.* FROM (SELECT * FROM t WHERE id = $1) AS x) AS r ON true',
    );
    expect(seen[0].params).toEqual(['id-1']);
    expect(seen[0].name).toBe(statementName(seen[0].text));
    expect(rows).toEqual([{ id: 'id-1', name: 'n' }]);
    expect(values).toEqual({ config: { a: 1 } });
  });

  it('answers no rows but the values when the read finds nothing', async () => {
    const { db } = capture([{ __along_config: 7, __along_found: null, id: null, name: null }]);
    expect(await readAlong(db, read, { config: 'SELECT 7' })).toEqual({ rows: [], values: { config: 7 } });
  });

  it('refuses a name that is not plain', async () => {
    const { db } = capture([]);
    await expect(readAlong(db, read, { 'x; DROP': 'SELECT 1' } as Record<string, string>)).rejects.toThrow(/not a plain/);
  });
});
