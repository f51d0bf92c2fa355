import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { withDatabase } from '../../tools/db';
import { type RunDatabase, dropDatabaseSql, runDatabase, runDatabaseName, withRunDatabase } from '../../bench/lib/run-database';
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

/** Whether a process of this pid exists (signal 0 checks without sending anything). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
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
    // Every database it creates and drops is its run's own, through the one helper that also drops it
    // on Ctrl-C (bench/lib/run-database.ts); a name written in the script would be shared by every
    // run on the server, and a create/try/finally of its own would leak on a signal.
    expect(source).not.toMatch(/DROP DATABASE|dropDatabaseSql|CREATE DATABASE/i);
    expect(source).not.toMatch(/'mm_bench_/);
    expect(source).toMatch(/withRunDatabase\(/);
  });
});

describe('withRunDatabase', () => {
  it('runs the function on a database of its own and drops it when the function succeeds', async () => {
    let seen: RunDatabase | undefined;
    const result = await withRunDatabase(TEST_ADMIN_URL, 'auth', async (db) => {
      seen = db;
      expect(await databasesNamed([db.name])).toEqual([db.name]);
      return 42;
    });
    expect(result).toBe(42);
    expect(await databasesNamed([seen!.name])).toEqual([]);
  });

  it('drops it when the function fails, holding a connection to it, and passes the failure on', async () => {
    let name = '';
    const failure = new Error('the bench failed');
    const busy: Client[] = [];
    await expect(
      withRunDatabase(TEST_ADMIN_URL, 'auth', async (db) => {
        name = db.name;
        const client = new Client({ connectionString: db.adminUrl });
        client.on('error', () => undefined);
        await client.connect();
        busy.push(client);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await databasesNamed([name])).toEqual([]);
    await busy[0].end().catch(() => undefined);
  });

  it('a database named by the operator is made again from empty, and kept when asked', async () => {
    const name = runDatabaseName('flow');
    const first = await withRunDatabase(TEST_ADMIN_URL, 'flow', async (db) => db.name, { name, keep: true });
    expect(first).toBe(name);
    expect(await databasesNamed([name])).toEqual([name]);
    // it exists already: dropped and created again rather than refused, then dropped at the end
    await withRunDatabase(TEST_ADMIN_URL, 'flow', async (db) => expect(await databasesNamed([db.name])).toEqual([name]), { name });
    expect(await databasesNamed([name])).toEqual([]);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'a run stopped by %s mid-run leaves no database and no service, and still ends by that signal',
    async (signal) => {
      const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'run-database-child.ts'), TEST_ADMIN_URL], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, sig) => resolve({ code, signal: sig })),
      );
      // the child prints its database's name and its service's pid once both are in use
      const [name, servicePid] = await new Promise<string[]>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          if (out.includes('\n')) resolve(out.split('\n')[0].split(' '));
        });
        void exited.then((end) => reject(new Error(`the child ended before it started: ${JSON.stringify(end)}`)));
      });
      expect(name).toMatch(/^mm_bench_sigtest_\d+_[0-9a-f]{8}$/);
      try {
        expect(await databasesNamed([name])).toEqual([name]);
        expect(isRunning(Number(servicePid))).toBe(true);
        // to the bench's pid alone, as `kill` or `timeout` send it (Ctrl-C would reach the service too)
        child.kill(signal);
        expect(await exited).toEqual({ code: null, signal });
        expect(await databasesNamed([name])).toEqual([]);
        expect(isRunning(Number(servicePid))).toBe(false);
      } finally {
        // a failed run of this test leaves no stand-in service behind
        if (isRunning(Number(servicePid))) process.kill(Number(servicePid), 'SIGKILL');
      }
    },
  );
});
