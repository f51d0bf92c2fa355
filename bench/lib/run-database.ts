import { randomBytes } from 'node:crypto';
import { withDatabase } from '../../tools/db';
import { stopRunChildren } from './run-children';
import { serverSql } from './server-sql';

/**
 * The database of one bench run. Its name is the bench's, the process id and random bytes, so two runs
 * on one server (two checkouts, a run beside a developer's `mm_bench_auth`) never share one: each run
 * creates its own and drops that one alone, never a database it did not create.
 */
export interface RunDatabase {
  name: string;
  /** superuser URL of this run's database */
  adminUrl: string;
  /** creates it, empty; fails if the name is somehow taken rather than reuse another run's data */
  create(): Promise<void>;
  /** drops it (FORCE: the bench's own services may still hold connections after a failure) */
  drop(): Promise<void>;
}

/** `mm_bench_<bench>_<pid>_<8 hex>`: a plain identifier, well under PostgreSQL's 63 characters. */
export function runDatabaseName(bench: string): string {
  if (!/^[a-z][a-z0-9_]{0,20}$/.test(bench)) throw new Error(`bench name must be a short lower-case identifier, got ${bench}`);
  return `mm_bench_${bench}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** The statement that drops exactly this database and no other. */
export function dropDatabaseSql(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`unsafe database name: ${name}`);
  return `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`;
}

/**
 * A new database name for this run of `bench`, on the server of `serverAdminUrl` (any database of
 * it); `name` instead when the operator chose one (`BENCH_FLOW_DB`).
 */
export function runDatabase(serverAdminUrl: string, bench: string, name = runDatabaseName(bench)): RunDatabase {
  dropDatabaseSql(name); // refuses a name unsafe to drop now, before anything is created
  return {
    name,
    adminUrl: withDatabase(serverAdminUrl, name),
    create: () => serverSql(serverAdminUrl, `CREATE DATABASE "${name}"`),
    drop: () => serverSql(serverAdminUrl, dropDatabaseSql(name)),
  };
}

export interface WithRunDatabaseOptions {
  /**
   * The name to use instead of a new one (bench:flow passes its own, or the operator's
   * `BENCH_FLOW_DB`): dropped first if it exists, since asking for a name is asking for a fresh one.
   */
  name?: string;
  /** leave the database in place at the end, for inspection (`SOAK_KEEP_DB`) */
  keep?: boolean;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Runs `fn` on a database of its own, created here and dropped when `fn` ends, whether it succeeded
 * or failed, and also when the process is told to stop (Ctrl-C, SIGTERM): Node's default for those
 * signals ends the process on the spot, with no `finally` run, which left one database behind per
 * interrupted run. On a signal the services the bench started are stopped (`stopWithRun`), the
 * database is dropped (FORCE ends the bench's own connections to it), then the same signal is
 * raised again with the default action, so the process ends as it would have, by that signal. The handlers are there from before the database exists until it is
 * gone, so an interrupted `CREATE DATABASE` or migration leaves nothing either.
 */
export async function withRunDatabase<T>(
  serverAdminUrl: string,
  bench: string,
  fn: (db: RunDatabase) => Promise<T>,
  options: WithRunDatabaseOptions = {},
): Promise<T> {
  const db = runDatabase(serverAdminUrl, bench, options.name);
  let dropping: Promise<void> | undefined;
  const dropOnce = (): Promise<void> => (dropping ??= options.keep ? Promise.resolve() : db.drop());
  let signalled = false;
  const release = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    if (signalled) return;
    signalled = true;
    // The run's services first (they hold connections and ports), then its database.
    stopRunChildren()
      .then(dropOnce)
      .catch((error: unknown) => process.stderr.write(`could not drop database ${db.name}: ${String(error)}\n`))
      .finally(() => {
        release();
        process.kill(process.pid, signal);
      });
  }
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    if (options.name) await db.drop();
    await db.create();
    return await fn(db);
  } finally {
    // After a signal, the handler drops the database and ends the process: this path waits for it
    // rather than report as a failure of `fn` what the drop did to its connections.
    if (signalled) await new Promise<never>(() => undefined);
    release();
    await dropOnce();
  }
}
