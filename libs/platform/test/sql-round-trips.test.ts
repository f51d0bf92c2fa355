import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { queryRows, readAlong, statementName, transactionOpenedWith } from '@mm/platform';
import { TEST_ADMIN_URL } from '../../../test/support/infra';

/**
 * queryRows' prepared statements, readAlong and transactionOpenedWith against a real PostgreSQL: a table of this file's own (a
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

describe('queryRows, prepared', () => {
  const preparedHere = async (name: string) =>
    (await db.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1`, [name]))[0].n as number;

  it('names the statement after its text, prepares it once on the connection and answers as an unnamed one would', async () => {
    const text = `INSERT INTO ${table} (id, amount) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET amount = EXCLUDED.amount RETURNING id, amount, at`;
    const name = statementName(text);
    expect(await preparedHere(name)).toBe(0);
    const first = await queryRows<{ id: number; amount: string; at: Date }>(db, text, [40, '9007199254740993'], { prepared: true });
    const again = await queryRows<{ id: number; amount: string; at: Date }>(db, text, [40, 7], { prepared: true });
    // one connection in the pool: the statement stayed prepared on it, once
    expect(await preparedHere(name)).toBe(1);
    expect(first).toEqual([{ id: 40, amount: '9007199254740993', at: expect.any(Date) }]);
    expect(again).toEqual([{ id: 40, amount: '7', at: expect.any(Date) }]);
    const unnamed = await queryRows<{ id: number; amount: string }>(db, `SELECT id, amount FROM ${table} WHERE id = $1`, [40]);
    expect(unnamed).toEqual([{ id: 40, amount: '7' }]);
    expect(await preparedHere(statementName(`SELECT id, amount FROM ${table} WHERE id = $1`))).toBe(0);
    await db.query(`DELETE FROM ${table}`);
  });

  it('a prepared statement naming its columns survives a column added by a migration; a prepared * does not', async () => {
    await db.query(`INSERT INTO ${table} (id, amount) VALUES (42, 5)`);
    const listed = `SELECT id, amount FROM ${table} WHERE id = $1`;
    const star = `SELECT * FROM ${table} WHERE id = $1`;
    await queryRows(db, listed, [42], { prepared: true });
    await queryRows(db, star, [42], { prepared: true });
    await db.query(`ALTER TABLE ${table} ADD COLUMN note text`);
    try {
      expect(await queryRows(db, listed, [42], { prepared: true })).toEqual([{ id: 42, amount: '5' }]);
      await expect(queryRows(db, star, [42], { prepared: true })).rejects.toThrow(/cached plan must not change result type/);
    } finally {
      await db.query(`ALTER TABLE ${table} DROP COLUMN note`);
      await db.query(`DELETE FROM ${table}`);
    }
  });

  it("a prepared statement's failure carries PostgreSQL's code, as an unnamed one's does", async () => {
    const text = `INSERT INTO ${table} (id, amount) VALUES ($1, $2)`;
    await queryRows(db, text, [41, 1], { prepared: true });
    await expect(queryRows(db, text, [41, 1], { prepared: true })).rejects.toMatchObject({ code: '23505' });
    await db.query(`DELETE FROM ${table}`);
  });
});

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
