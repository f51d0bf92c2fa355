import { randomBytes } from 'node:crypto';
import { withDatabase } from '../../tools/db';
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

/** A new database name for this run of `bench`, on the server of `serverAdminUrl` (any database of it). */
export function runDatabase(serverAdminUrl: string, bench: string): RunDatabase {
  const name = runDatabaseName(bench);
  return {
    name,
    adminUrl: withDatabase(serverAdminUrl, name),
    create: () => serverSql(serverAdminUrl, `CREATE DATABASE "${name}"`),
    drop: () => serverSql(serverAdminUrl, dropDatabaseSql(name)),
  };
}
