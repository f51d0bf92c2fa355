import { Logger } from '@nestjs/common';
import { Client, type ClientConfig, type Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

const logger = new Logger('SessionLock');

interface LockSession {
  client: Client;
  /** Frees the lock when `held`, then ends the session. */
  close(held: boolean): Promise<void>;
}

/**
 * A connection of its own for one session advisory lock, made from the DataSource pool's own
 * options (URL, credentials, SSL, `extra` settings such as statement_timeout), so it reaches the
 * database exactly as the pool's connections do; only application_name differs, so the lock
 * sessions can be told apart in pg_stat_activity.
 */
async function lockSession(db: DataSource, key: string, params: unknown[]): Promise<LockSession> {
  const pool = (db.driver as PostgresDriver).master as Pool | undefined;
  if (!pool?.options) throw new Error('withSessionLock needs an initialized PostgreSQL DataSource');
  // pg-pool hides the password (and an SSL key) as non-enumerable properties: a spread would drop them.
  const config = Object.defineProperties({}, Object.getOwnPropertyDescriptors(pool.options)) as ClientConfig;
  config.application_name = `${pool.options.application_name ?? 'app'} session lock`;
  const client = new Client(config);
  let closing = false;
  // Without a listener, the socket failing while work runs would be an uncaught 'error' and end the process.
  client.on('error', (error) => {
    if (!closing) logger.warn({ err: error }, 'session lock connection lost while its work ran: PostgreSQL freed the lock');
  });
  const close = async (held: boolean): Promise<void> => {
    // Freed explicitly so the lock is free once the caller's promise settles; should that fail,
    // ending the session frees it anyway.
    if (held) await client.query(`SELECT pg_advisory_unlock(${key})`, params).catch(() => undefined);
    closing = true;
    await client.end().catch(() => undefined);
  };
  try {
    await client.connect();
  } catch (error) {
    await close(false);
    throw error;
  }
  return { client, close };
}

/**
 * Runs `work` while a PostgreSQL session advisory lock is held, or not at all (false) when another
 * session holds it. The lock sits on a short-lived connection of its own, outside the DataSource's
 * pool, because `work` queries through the pool: a lock kept on a pooled connection takes one of
 * the connections that work then waits for, and with as many lock holders at once as the pool has
 * connections, none is left for anyone (every checkout of the process, requests included, times
 * out). Each call in progress costs one database connection beyond the pool.
 *
 * `key` is the SQL of the lock's key, its parameters in `params` (e.g. `hashtextextended($1, 0)`).
 */
export async function withSessionLock(db: DataSource, key: string, params: unknown[], work: () => Promise<void>): Promise<boolean> {
  const session = await lockSession(db, key, params);
  let held = false;
  try {
    const { rows } = await session.client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${key}) AS locked`, params);
    held = rows[0].locked;
    if (!held) return false;
    await work();
    return true;
  } finally {
    await session.close(held);
  }
}

/**
 * As `withSessionLock`, but waits for the lock (pg_advisory_lock) instead of giving up, then
 * answers what `work` answers. Each waiter holds its own connection outside the pool while it
 * waits, never a pooled one, so waiters cannot starve the holder's work of connections; keep it to
 * rare paths, since every caller waiting costs a database connection. The wait has no limit of its
 * own beyond a statement_timeout/lock_timeout the pool's options may set.
 */
export async function withSessionLockWaiting<T>(db: DataSource, key: string, params: unknown[], work: () => Promise<T>): Promise<T> {
  const session = await lockSession(db, key, params);
  let held = false;
  try {
    await session.client.query(`SELECT pg_advisory_lock(${key})`, params);
    held = true;
    return await work();
  } finally {
    await session.close(held);
  }
}
