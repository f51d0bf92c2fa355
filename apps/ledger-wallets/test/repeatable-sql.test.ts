import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { SERVICES } from '@mm/contracts';
import { migrationDataSource } from '../../../tools/db';
import { REPEATABLE_TABLE, applyRepeatable, repeatableDir, repeatableFiles } from '../../../tools/repeatable-sql';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';

/**
 * The ledger's functions are read and changed in `apps/ledger-wallets/sql/<name>.sql`, one file
 * each, and `npm run migrate` applies them after the versioned migrations (tools/repeatable-sql.ts).
 * The database a migration leaves must hold exactly the files' text; a changed file is applied again,
 * alone, keeping the runtime role's EXECUTE.
 */
describe('ledger: the repeatable SQL files are the functions of the schema', () => {
  let db: TestDatabase;
  let admin: Client;
  const dir = repeatableDir('ledger-wallets');

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  /** Every routine of the schema: name → its text as PostgreSQL prints it, and its grants. */
  async function routines(): Promise<Map<string, { def: string; acl: string }>> {
    const { rows } = await admin.query<{ name: string; def: string; acl: string }>(
      `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS def, p.proacl::text AS acl
         FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace ORDER BY p.oid::regprocedure::text`,
    );
    return new Map(rows.map((r) => [r.name, { def: r.def, acl: r.acl }]));
  }

  /** A file's statement as PostgreSQL prints it back: without the final semicolon. */
  const statement = (text: string) => text.trimEnd().replace(/;$/, '').trimEnd();

  it('holds one file per function, procedure and trigger function, each equal to what the database runs', async () => {
    const files = repeatableFiles(dir);
    const inDatabase = await routines();
    expect(files.map((f) => f.name).sort()).toEqual([...inDatabase.keys()].map((name) => `${name}.sql`).sort());
    for (const file of files) {
      const name = file.name.replace(/\.sql$/, '');
      expect({ name, text: statement(file.text) }).toEqual({ name, text: statement(inDatabase.get(name)!.def) });
      // One CREATE OR REPLACE of the function the file is named after, nothing else.
      expect(file.text).toMatch(new RegExp(`^CREATE OR REPLACE (FUNCTION|PROCEDURE) ledger\\.${name}\\(`));
      expect(file.text.match(/CREATE OR REPLACE/g)).toHaveLength(1);
    }
    const recorded = await admin.query<{ name: string; checksum: string }>(
      `SELECT name, checksum FROM ledger.${REPEATABLE_TABLE} ORDER BY name`,
    );
    expect(recorded.rows).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
  });

  it('applies nothing when no file changed, applies a changed file alone (grants kept), and rolls back a file that fails', async () => {
    const source = migrationDataSource(db.adminUrl, 'ledger-wallets');
    await source.initialize();
    const copy = mkdtempSync(join(tmpdir(), 'ledger-sql-'));
    try {
      cpSync(dir, copy, { recursive: true });
      const before = await routines();
      expect(await applyRepeatable(source, 'ledger-wallets', { dir: copy })).toEqual([]);
      // Everything again (what a run that applied a versioned migration does): the same functions.
      expect(await applyRepeatable(source, 'ledger-wallets', { dir: copy, all: true })).toHaveLength(before.size);
      expect(await routines()).toEqual(before);

      const file = join(copy, 'lock_keys.sql');
      const changed = readFileSync(file, 'utf8').replace('BEGIN', 'BEGIN\n        -- changed by the repeatable SQL test');
      writeFileSync(file, changed);
      expect(await applyRepeatable(source, 'ledger-wallets', { dir: copy })).toEqual(['lock_keys.sql']);
      const after = await routines();
      expect(after.get('lock_keys')!.def).toContain('-- changed by the repeatable SQL test');
      expect(after.get('lock_keys')!.acl).toBe(before.get('lock_keys')!.acl);
      expect(after.get('lock_keys')!.acl).toContain(SERVICES['ledger-wallets'].role);
      expect(await applyRepeatable(source, 'ledger-wallets', { dir: copy })).toEqual([]);

      // A file that fails: the run applies nothing, records nothing, and names the file.
      writeFileSync(file, readFileSync(join(dir, 'lock_keys.sql'), 'utf8'));
      writeFileSync(join(copy, 'forbid_delete.sql'), 'CREATE OR REPLACE FUNCTION ledger.forbid_delete( RETURNS trigger');
      await expect(applyRepeatable(source, 'ledger-wallets', { dir: copy })).rejects.toThrow(/forbid_delete\.sql/);
      expect((await routines()).get('lock_keys')!.def).toContain('-- changed by the repeatable SQL test');

      // Back to the repository's files.
      expect(await applyRepeatable(source, 'ledger-wallets')).toEqual(['lock_keys.sql']);
      expect(await routines()).toEqual(before);
    } finally {
      rmSync(copy, { recursive: true, force: true });
      await source.destroy();
    }
  });

  it('keeps its bookkeeping from the runtime role', async () => {
    const { rows } = await admin.query<{ can: boolean }>(`SELECT has_table_privilege($1, $2, 'SELECT') AS can`, [
      SERVICES['ledger-wallets'].role,
      `ledger.${REPEATABLE_TABLE}`,
    ]);
    expect(rows[0].can).toBe(false);
  });
});
