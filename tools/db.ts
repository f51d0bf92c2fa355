import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { MIGRATIONS } from '../migrations';
import { MIGRATIONS_TABLE } from '../migrations/runtime-role';
import { applyRepeatable } from './repeatable-sql';

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
 * Owns every schema and every object in it. It cannot log in: only migrations act as it (the admin
 * connection switches to it), so no running service holds the power to alter, drop or truncate a
 * table or switch its triggers off.
 */
export const OWNER_ROLE = 'mm_owner';

/** Runs a statement that creates a cluster-wide role or membership, tolerating a concurrent creator. */
function ifAbsent(statement: string): string {
  return `DO $$ BEGIN ${statement}; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`;
}

/**
 * The owner role, one login role and one schema per service. The schema belongs to the owner; the
 * service's role may only use it (its migrations grant it row privileges on its own tables), and
 * nobody else may, so a service can neither read nor write another service's tables nor change
 * the shape of its own. Idempotent. Role passwords come from `<ROLE>_PASSWORD` (e.g.
 * SVC_LEDGER_PASSWORD) when set.
 */
export async function ensureRolesAndSchemas(adminUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await withClient(adminUrl, async (c) => {
    const owner = quoteIdent(OWNER_ROLE);
    await c.query(ifAbsent(`CREATE ROLE ${owner} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`));
    for (const service of SERVICE_NAMES) {
      const { role, schema } = SERVICES[service];
      await c.query(ifAbsent(`CREATE ROLE ${quoteIdent(role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`));
      const password = env[`${role.toUpperCase()}_PASSWORD`];
      if (password) await c.query(`ALTER ROLE ${quoteIdent(role)} PASSWORD ${quoteLiteral(password)}`);
      // The owner may act for the service role (never the other way round): that is how a
      // migration takes over what the role owned in databases migrated before the owner existed.
      const member = await c.query('SELECT pg_has_role($1, $2, $3) AS yes', [OWNER_ROLE, role, 'MEMBER']);
      if (!member.rows[0].yes) await c.query(ifAbsent(`GRANT ${quoteIdent(role)} TO ${owner}`));
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)} AUTHORIZATION ${owner}`);
      await c.query(`ALTER SCHEMA ${quoteIdent(schema)} OWNER TO ${owner}`);
      await c.query(`REVOKE ALL ON SCHEMA ${quoteIdent(schema)} FROM PUBLIC`);
      await c.query(`REVOKE CREATE ON SCHEMA ${quoteIdent(schema)} FROM ${quoteIdent(role)}`);
      await c.query(`GRANT USAGE ON SCHEMA ${quoteIdent(schema)} TO ${quoteIdent(role)}`);
    }
    // Nobody but the admin creates objects in public.
    await c.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  });
}

/** A TypeORM data source for one service's migrations: its schema, acting as the owner role. */
export function migrationDataSource(adminUrl: string, service: ServiceName): DataSource {
  const { schema } = SERVICES[service];
  return new DataSource({
    type: 'postgres',
    url: adminUrl,
    schema,
    migrations: MIGRATIONS[service],
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    logging: false,
    // Connect with the admin login but act as the owner for the whole session: what the
    // migrations create belongs to it, and they grant the service role what it needs.
    extra: { options: `-c role=${OWNER_ROLE} -c search_path=${schema}` },
  });
}

/**
 * Reverts the last applied migration of `source` (a `migrationDataSource`), in a transaction unless
 * the migration opted out (`transaction = false`, e.g. an index built CONCURRENTLY): TypeORM honours
 * that flag when it runs migrations, but its `undoLastMigration` wraps every `down()` it is given
 * in one transaction, where `DROP INDEX CONCURRENTLY` is refused.
 */
export async function undoLastMigration(source: DataSource): Promise<void> {
  const table = source.options.migrationsTableName ?? MIGRATIONS_TABLE;
  const schema = (source.options as { schema?: string }).schema;
  const [last] = (await source.query(
    `SELECT name FROM ${schema ? `${quoteIdent(schema)}.` : ''}${quoteIdent(table)} ORDER BY timestamp DESC, id DESC LIMIT 1`,
  )) as {
    name: string;
  }[];
  const migration = last ? source.migrations.find((m) => m.name === last.name) : undefined;
  await source.undoLastMigration({ transaction: migration?.transaction === false ? 'none' : 'each' });
}

/**
 * Runs pending migrations of one service in its schema, as the owner role, then its repeatable SQL
 * (`tools/repeatable-sql.ts`): the files of `apps/<service>/sql` that changed, or all of them when a
 * versioned migration ran. Returns what was applied: the migrations' names, then `sql/<file>`.
 */
export async function migrateService(adminUrl: string, service: ServiceName): Promise<string[]> {
  const dataSource = migrationDataSource(adminUrl, service);
  await dataSource.initialize();
  try {
    const done = await dataSource.runMigrations({ transaction: 'each' });
    const sql = await applyRepeatable(dataSource, service, { all: done.length > 0 });
    return [...done.map((m) => m.name), ...sql.map((name) => `sql/${name}`)];
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
