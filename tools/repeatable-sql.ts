import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { SERVICES, type ServiceName } from '@mm/contracts';

/**
 * Repeatable SQL (docs/architecture.md, "The ledger's SQL"): a service's database functions live as
 * one `CREATE OR REPLACE` file each in `apps/<service>/sql/`, the one place to read and change their
 * current text. Versioned migrations stay the history of tables, triggers, types and signatures;
 * after them, `npm run migrate` applies the files of the folder whose checksum changed since they
 * were last applied, recorded in `<schema>.repeatable_migrations`.
 */
export const REPEATABLE_TABLE = 'repeatable_migrations';

export interface RepeatableFile {
  /** the file name, e.g. `execute_confirm.sql` */
  name: string;
  text: string;
  /** sha256 of the text, hex */
  checksum: string;
}

/**
 * `apps/<service>/sql`: from `tools/` when run from the sources (tests, `node -r @swc-node/register`),
 * from `dist/tools/` in a build, where `scripts/build.mjs` copies the files to `dist/apps/<service>/sql`.
 */
export function repeatableDir(service: ServiceName): string {
  return join(__dirname, '..', 'apps', service, 'sql');
}

/** The `.sql` files of a folder in a stable order (by name, bytewise); none when there is no folder. */
export function repeatableFiles(dir: string): RepeatableFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
    });
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Applies the files of `dir` in one transaction on `source` (a `migrationDataSource`: the owner role,
 * the service's schema), so what they create belongs to the owner and the runtime role gets EXECUTE
 * through the schema's default privileges, as for anything a versioned migration creates; `CREATE OR
 * REPLACE` keeps the grants of a function that exists. Applies a file whose checksum differs from the
 * recorded one, or every file when `all` (a versioned migration ran: it may have put back an older
 * text, e.g. a `down` and `up` again). Function bodies are not checked against each other while the
 * files run (`check_function_bodies` off, as pg_dump does), so their order does not matter. Two
 * migrate runs at once take turns on a transaction-level advisory lock. Returns the names applied.
 */
export async function applyRepeatable(
  source: DataSource,
  service: ServiceName,
  options: { all?: boolean; dir?: string } = {},
): Promise<string[]> {
  const files = repeatableFiles(options.dir ?? repeatableDir(service));
  if (files.length === 0) return [];
  const { schema, role } = SERVICES[service];
  const table = `${ident(schema)}.${ident(REPEATABLE_TABLE)}`;
  const runner = source.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    await runner.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`repeatable-sql:${schema}`]);
    await runner.query(`SET LOCAL check_function_bodies = off`);
    await runner.query(
      `CREATE TABLE IF NOT EXISTS ${table} (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    // Bookkeeping of the migration role alone, like the versioned migrations' journal (the schema's
    // default privileges would give the runtime role its rows).
    await runner.query(`REVOKE ALL ON TABLE ${table} FROM ${ident(role)}`);
    const rows: { name: string; checksum: string }[] = await runner.query(`SELECT name, checksum FROM ${table}`);
    const recorded = new Map(rows.map((r) => [r.name, r.checksum]));
    const applied: string[] = [];
    for (const file of files) {
      if (!options.all && recorded.get(file.name) === file.checksum) continue;
      try {
        await runner.query(file.text);
      } catch (error) {
        throw new Error(`${service} ${file.name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      await runner.query(
        `INSERT INTO ${table} (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [file.name, file.checksum],
      );
      applied.push(file.name);
    }
    await runner.commitTransaction();
    return applied;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw error;
  } finally {
    await runner.release();
  }
}
