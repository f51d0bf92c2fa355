import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { MIGRATIONS } from '../migrations';

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe identifier: ${name}`);
  return `"${name}"`;
}

function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** True when a PostgreSQL server answers at this URL (any database). */
export async function isPostgresReachable(url: string): Promise<boolean> {
  try {
    await withClient(withDatabase(url, 'postgres'), (c) => c.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

/** Creates the database of the admin URL when it does not exist yet. */
export async function ensureDatabase(adminUrl: string): Promise<void> {
  const name = databaseName(adminUrl);
  await withClient(withDatabase(adminUrl, 'postgres'), async (c) => {
    const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await c.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e; // created concurrently
      });
    }
  });
}

/**
 * One login role and one schema per service; the schema belongs to the role and nobody else may
 * use it, so a service can neither read nor write another service's tables. Idempotent.
 * Role passwords come from `<ROLE>_PASSWORD` (e.g. SVC_LEDGER_PASSWORD) when set.
 */
export async function ensureRolesAndSchemas(adminUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await withClient(adminUrl, async (c) => {
    for (const service of SERVICE_NAMES) {
      const { role, schema } = SERVICES[service];
      await c.query(
        `DO $$ BEGIN CREATE ROLE ${quoteIdent(role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
      );
      const password = env[`${role.toUpperCase()}_PASSWORD`];
      if (password) await c.query(`ALTER ROLE ${quoteIdent(role)} PASSWORD ${quoteLiteral(password)}`);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)} AUTHORIZATION ${quoteIdent(role)}`);
      await c.query(`ALTER SCHEMA ${quoteIdent(schema)} OWNER TO ${quoteIdent(role)}`);
      await c.query(`REVOKE ALL ON SCHEMA ${quoteIdent(schema)} FROM PUBLIC`);
    }
    // Nobody but the admin creates objects in public.
    await c.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  });
}

/** Runs pending migrations of one service in its schema, as its role (objects are owned by it). */
export async function migrateService(adminUrl: string, service: ServiceName): Promise<string[]> {
  const { role, schema } = SERVICES[service];
  const dataSource = new DataSource({
    type: 'postgres',
    url: adminUrl,
    schema,
    migrations: MIGRATIONS[service],
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    logging: false,
    // Connect with the admin login but act as the service role for the whole session.
    extra: { options: `-c role=${role} -c search_path=${schema}` },
  });
  await dataSource.initialize();
  try {
    const done = await dataSource.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}

/** The whole of `npm run migrate`: database, roles, schemas, every service's migrations. */
export async function migrateAll(adminUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<Record<ServiceName, string[]>> {
  await ensureDatabase(adminUrl);
  await ensureRolesAndSchemas(adminUrl, env);
  const result = {} as Record<ServiceName, string[]>;
  for (const service of SERVICE_NAMES) result[service] = await migrateService(adminUrl, service);
  return result;
}

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/mobile_money';
