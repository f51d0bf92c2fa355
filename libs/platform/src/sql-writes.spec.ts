import { statementName } from './sql';
import { type SqlWrite, runWritesTogether } from './sql-writes';

/** Records the one statement it is given and answers `rows`. */
function capture(rows: unknown[] = [{ id: 'r1' }]) {
  const seen: Array<{ text: string; params: unknown[]; name?: string }> = [];
  // A prepared statement arrives as pg's query config ({ name, text }) where TypeORM takes a text.
  const query = async (sent: string | { name: string; text: string }, params: unknown[] = []) => {
    seen.push(typeof sent === 'string' ? { text: sent, params } : { text: sent.text, params, name: sent.name });
    return rows;
  };
  return { seen, db: { query: query as (text: string, params?: unknown[]) => Promise<unknown> } };
}

describe('runWritesTogether', () => {
  const update: SqlWrite = { text: 'UPDATE t SET a = $2 WHERE id = $1 RETURNING id', params: ['id-1', 'A'] };
  const insert: SqlWrite = { text: 'INSERT INTO u (x, y, z) VALUES ($1, $2, $3)', params: ['X', 'Y', 'Z'] };

  it('makes one statement of CTEs, numbering each write after the ones before, and answers the named one', async () => {
    const { seen, db } = capture();
    const rows = await runWritesTogether(db, { settled: update, sms: insert }, 'settled');
    expect(rows).toEqual([{ id: 'r1' }]);
    expect(seen).toHaveLength(1);
    expect(seen[0].text).toBe(
      'WITH settled AS (UPDATE t SET a = $2 WHERE id = $1 RETURNING id),\nsms AS (INSERT INTO u (x, y, z) VALUES ($3, $4, $5))\nSELECT * FROM settled',
    );
    expect(seen[0].params).toEqual(['id-1', 'A', 'X', 'Y', 'Z']);
    // named after its text: PostgreSQL parses and plans it once per connection
    expect(seen[0].name).toBe(statementName(seen[0].text));
  });

  it('renumbers $10 and above whole, not as $1 followed by 0', async () => {
    const { seen, db } = capture();
    const eleven = Array.from({ length: 11 }, (_, i) => i);
    await runWritesTogether(
      db,
      { a: { text: 'SELECT $1', params: [0] }, b: { text: 'INSERT INTO v VALUES ($10, $11, $1)', params: eleven } },
      'a',
    );
    expect(seen[0].text).toContain('b AS (INSERT INTO v VALUES ($11, $12, $2))');
  });

  it('keeps the writes in the given order, so that a write may name an earlier one by its name', async () => {
    const { seen, db } = capture();
    const first: SqlWrite = { text: 'INSERT INTO q (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id', params: ['q1'] };
    const guarded: SqlWrite = { text: 'INSERT INTO r (id, q) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM quote)', params: ['r1', 'q1'] };
    await runWritesTogether(db, { quote: first, record: guarded }, 'record');
    expect(seen[0].text).toBe(
      'WITH quote AS (INSERT INTO q (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id),\n' +
        'record AS (INSERT INTO r (id, q) SELECT $2, $3 WHERE EXISTS (SELECT 1 FROM quote))\nSELECT * FROM record',
    );
    expect(seen[0].params).toEqual(['q1', 'r1', 'q1']);
  });

  it('refuses a write that names a parameter it does not have, an unknown answer and a name that is not plain', async () => {
    const { db } = capture();
    expect(() => runWritesTogether(db, { a: { text: 'UPDATE t SET x = $2', params: [1] } }, 'a')).toThrow(/uses \$2 but has 1/);
    expect(() => runWritesTogether(db, { a: update }, 'b')).toThrow(/no write named b/);
    expect(() => runWritesTogether(db, { 'a; DROP': update }, 'a; DROP')).toThrow(/not a plain lower-case name/);
  });
});
