import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { readAlong, transactionOpenedWith } from '@mm/platform';
import { TEST_ADMIN_URL } from '../../../test/support/infra';

/**
 * readAlong and transactionOpenedWith against a real PostgreSQL: a table of this file's own (a
 * unique name) in the admin database, dropped at the end.
 */
const table = `rt_${randomUUID().replace(/-/g, '')}`;
let db: DataSource;
let other: Client;

beforeAll(async () => {
  // One connection: what a transaction leaves open on it, the next statement would see.
  db = new DataSource({ type: 'postgres', url: TEST_ADMIN_URL, extra: { max: 1 } });
  await db.initialize();
  other = new Client({ connectionString: TEST_ADMIN_URL });
  await other.connect();
  await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, amount bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
});

afterAll(async () => {
  await db?.query(`DROP TABLE IF EXISTS ${table}`);
  await db?.destroy();
  await other?.end();
});

const rowsSeenElsewhere = async () => (await other.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id as number);

describe('readAlong', () => {
  it("answers the read's rows parsed as alone (bigint as text, timestamptz as Date) and the value riding along", async () => {
    await db.query(`INSERT INTO ${table} (id, amount) VALUES (1, 9007199254740993)`);
    const read = { text: `SELECT id, amount, at FROM ${table} WHERE id = $1`, params: [1] };
    const alone = await db.query(read.text, read.params);
    const { rows, values } = await readAlong<{ id: number; amount: string; at: Date }, 'total'>(db, read, {
      total: `SELECT count(*)::int FROM ${table}`,
    });
    expect(rows).toEqual(alone);
    expect(rows[0].amount).toBe('9007199254740993');
    expect(rows[0].at).toBeInstanceOf(Date);
    expect(values).toEqual({ total: 1 });

    const none = await readAlong(db, { text: read.text, params: [2] }, { total: `SELECT count(*)::int FROM ${table}` });
    expect(none).toEqual({ rows: [], values: { total: 1 } });
    await db.query(`DELETE FROM ${table}`);
  });
});

describe('transactionOpenedWith', () => {
  const key = `sql-round-trips:${table}`;
  const lock = `SELECT pg_advisory_xact_lock(hashtextextended('${key}', 0))`;
  const tryLock = async () =>
    (await other.query(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS got`, [key])).rows[0].got as boolean;

  it('holds what its first statement took until it commits, and commits what the work wrote', async () => {
    const answer = await transactionOpenedWith(db, lock, async (m) => {
      await m.query(`INSERT INTO ${table} (id, amount) VALUES (10, 1)`);
      // Inside: the lock is held and the row is not yet seen by another connection.
      expect(await tryLock()).toBe(false);
      expect(await rowsSeenElsewhere()).toEqual([]);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await rowsSeenElsewhere()).toEqual([10]);
    expect(await tryLock()).toBe(true);
  });

  it('rolls back what the work wrote when it throws, rethrows, and leaves the connection outside any transaction', async () => {
    const failure = new Error('work failed');
    await expect(
      transactionOpenedWith(db, lock, async (m) => {
        await m.query(`INSERT INTO ${table} (id, amount) VALUES (20, 1)`);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await rowsSeenElsewhere()).toEqual([10]);
    expect(await tryLock()).toBe(true);
    // The pool's one connection autocommits again: a write is seen elsewhere at once.
    await db.query(`INSERT INTO ${table} (id, amount) VALUES (21, 1)`);
    expect(await rowsSeenElsewhere()).toEqual([10, 21]);
  });

  it('a first statement that fails opens nothing: the error comes back and the connection is clean', async () => {
    await expect(transactionOpenedWith(db, `SELECT 1/0`, async () => 'never')).rejects.toThrow(/division by zero/);
    await db.query(`INSERT INTO ${table} (id, amount) VALUES (30, 1)`);
    expect(await rowsSeenElsewhere()).toEqual([10, 21, 30]);
  });
});
