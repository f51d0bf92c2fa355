import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { withDatabase } from '../../tools/db';
import { dropDatabaseSql, runDatabase } from '../../bench/lib/run-database';
import { TEST_ADMIN_URL } from '../support/infra';

async function databasesNamed(names: string[]): Promise<string[]> {
  const c = new Client({ connectionString: withDatabase(TEST_ADMIN_URL, 'postgres') });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = ANY($1) ORDER BY datname', [
      names,
    ]);
    return rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

/**
 * Two bench runs on one server (two checkouts, or a run beside a developer's database) must never
 * drop each other's database: each run gets its own name and drops that one only.
 */
describe('bench run databases', () => {
  it('gives two runs of the same bench two different databases, each a plain identifier', () => {
    const [a, b] = [runDatabase(TEST_ADMIN_URL, 'auth'), runDatabase(TEST_ADMIN_URL, 'auth')];
    expect(a.name).not.toBe(b.name);
    for (const run of [a, b]) {
      expect(run.name).toMatch(/^mm_bench_auth_\d+_[0-9a-f]{8}$/);
      expect(run.name.length).toBeLessThanOrEqual(63);
      expect(new URL(run.adminUrl).pathname).toBe(`/${run.name}`);
    }
    expect(dropDatabaseSql(a.name)).toBe(`DROP DATABASE IF EXISTS "${a.name}" WITH (FORCE)`);
    expect(() => dropDatabaseSql('x"; DROP DATABASE postgres; --')).toThrow(/unsafe/);
  });

  it("a run's drop removes its own database and leaves the other run's", async () => {
    const [mine, theirs] = [runDatabase(TEST_ADMIN_URL, 'soak'), runDatabase(TEST_ADMIN_URL, 'soak')];
    await mine.create();
    await theirs.create();
    try {
      expect(await databasesNamed([mine.name, theirs.name])).toEqual([mine.name, theirs.name].sort());
      // the other run is connected to its database, as a running bench is: FORCE must not reach it
      const busy = new Client({ connectionString: theirs.adminUrl });
      await busy.connect();
      try {
        await mine.drop();
        expect(await databasesNamed([mine.name, theirs.name])).toEqual([theirs.name]);
        expect((await busy.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await busy.end();
      }
    } finally {
      await mine.drop();
      await theirs.drop();
    }
    expect(await databasesNamed([mine.name, theirs.name])).toEqual([]);
  });

  it.each(['auth', 'partners', 'soak', 'webhooks', 'flow'])('bench:%s drops no database of a fixed name', (bench) => {
    const source = readFileSync(join(__dirname, '../../bench', bench, 'run.ts'), 'utf8');
    // Every database it creates and drops is its run's own (bench/lib/run-database.ts); a name written
    // in the script would be shared by every run on the server.
    expect(source).not.toMatch(/DROP DATABASE/i);
    expect(source).not.toMatch(/'mm_bench_/);
    expect(source).toMatch(/runDatabase(Name)?\(/);
  });
});
