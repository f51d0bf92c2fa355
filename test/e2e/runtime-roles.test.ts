import { Client } from 'pg';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { MIGRATIONS_TABLE } from '../../migrations/runtime-role';
import { OWNER_ROLE, migrateAll, migrationDataSource, undoLastMigration } from '../../tools/db';
import { REPEATABLE_TABLE } from '../../tools/repeatable-sql';
import { type TestDatabase, createTestDatabase } from '../support/test-env';

/** The migration that took ownership away from the runtime roles. */
const HANDOVER = 'RuntimeRolePrivileges1765200000000';

/**
 * What only the owner's own functions use, which the runtime role may not even read: the key and the
 * generation that authenticate the double-entry check's memo (migration 1765300000000).
 */
const OWNER_ONLY: Partial<Record<ServiceName, { tables: string[]; sequences: string[] }>> = {
  'ledger-wallets': {
    tables: [],
    sequences: ['ledger.balance_memo_generation', 'ledger.balance_memo_key_a', 'ledger.balance_memo_key_b'],
  },
};

async function connected<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

interface SchemaObjects {
  tables: string[];
  functions: string[];
  sequences: string[];
}

/** The schema's tables, sequences (qualified, quoted) and routines (with their argument types), the migrations' own journals aside. */
async function objectsOf(db: TestDatabase, service: ServiceName): Promise<SchemaObjects> {
  return connected(db.adminUrl, async (c) => {
    const { schema } = SERVICES[service];
    const relations = (kinds: string[], except: string[]) =>
      c.query<{ name: string }>(
        `SELECT format('%I.%I', n.nspname, t.relname) AS name FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
          WHERE n.nspname = $1 AND t.relkind = ANY($2) AND NOT (t.relname = ANY($3)) ORDER BY 1`,
        [schema, kinds, except],
      );
    const tables = await relations(['r', 'p'], [MIGRATIONS_TABLE, REPEATABLE_TABLE]);
    const sequences = await relations(['S'], [`${MIGRATIONS_TABLE}_id_seq`]);
    const functions = await c.query<{ name: string }>(
      `SELECT p.oid::regprocedure::text AS name
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 ORDER BY 1`,
      [schema],
    );
    const names = (result: { rows: { name: string }[] }) => result.rows.map((r) => r.name);
    return { tables: names(tables), functions: names(functions), sequences: names(sequences) };
  });
}

/** Owner and access list of every object of the five schemas: what a migration run must leave as it is. */
async function catalog(db: TestDatabase): Promise<string[]> {
  return connected(db.adminUrl, async (c) => {
    const schemas = SERVICE_NAMES.map((s) => SERVICES[s].schema);
    const { rows } = await c.query<{ line: string }>(
      `SELECT concat_ws(' ', n.nspname || '.' || t.relname, t.relowner::regrole, t.relacl) AS line
         FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = ANY($1) AND t.relkind <> 'i'
       UNION ALL
       SELECT concat_ws(' ', n.nspname || '.' || p.proname, p.proowner::regrole, p.proacl)
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ANY($1)
       UNION ALL
       SELECT concat_ws(' ', nspname, nspowner::regrole, nspacl) FROM pg_namespace WHERE nspname = ANY($1)
       UNION ALL
       SELECT concat_ws(' ', defaclnamespace::regnamespace, defaclrole::regrole, defaclobjtype, defaclacl) FROM pg_default_acl
       ORDER BY 1`,
      [schemas],
    );
    return rows.map((r) => r.line);
  });
}

/** Reverts the handover migration of one service (and whatever came after it), as a rollback would. */
async function revertHandover(db: TestDatabase, service: ServiceName): Promise<void> {
  const source = migrationDataSource(db.adminUrl, service);
  await source.initialize();
  try {
    const applied = async () =>
      (await source.query(`SELECT name FROM ${SERVICES[service].schema}.${MIGRATIONS_TABLE}`)).some(
        (r: { name: string }) => r.name === HANDOVER,
      );
    while (await applied()) await undoLastMigration(source);
  } finally {
    await source.destroy();
  }
}

/** What an owner could do to undo the database's guards; the runtime role must be refused each of them. */
async function expectNoOwnerPowers(url: string, { tables, functions }: SchemaObjects): Promise<void> {
  await connected(url, async (c) => {
    for (const table of tables) {
      for (const sql of [
        `ALTER TABLE ${table} DISABLE TRIGGER USER`,
        `ALTER TABLE ${table} ADD COLUMN intruder int`,
        `ALTER TABLE ${table} OWNER TO CURRENT_USER`,
        `CREATE TRIGGER intruder BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()`,
        `TRUNCATE ${table} CASCADE`,
        `DROP TABLE ${table} CASCADE`,
      ]) {
        await expect(c.query(sql)).rejects.toMatchObject({ code: '42501' });
      }
    }
    for (const fn of functions) {
      await expect(c.query(`ALTER ROUTINE ${fn} SECURITY DEFINER`)).rejects.toMatchObject({ code: '42501' });
      await expect(c.query(`DROP ROUTINE ${fn} CASCADE`)).rejects.toMatchObject({ code: '42501' });
    }
  });
}

describe('database: the runtime roles own nothing (docs/architecture.md "Storage: one database, one schema and one role per service")', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('the ledger role cannot switch off the append-only guard of its entries', async () => {
    await connected(db.urlFor('ledger-wallets'), async (c) => {
      await expect(c.query(`ALTER TABLE ledger.ledgers DISABLE TRIGGER USER`)).rejects.toMatchObject({
        code: '42501',
        message: 'must be owner of table ledgers',
      });
      await expect(c.query(`ALTER TABLE ledger.transactions DISABLE TRIGGER trg_transactions_balanced`)).rejects.toMatchObject({
        code: '42501',
      });
      await expect(c.query(`SET session_replication_role = replica`)).rejects.toMatchObject({ code: '42501' });
    });
  });

  it.each(SERVICE_NAMES)(
    'the %s role may neither alter, truncate nor drop its tables, nor touch their triggers and functions',
    async (service) => {
      const objects = await objectsOf(db, service);
      expect(objects.tables.length).toBeGreaterThan(0);
      await expectNoOwnerPowers(db.urlFor(service), objects);
    },
  );

  it.each(SERVICE_NAMES)('the %s role owns nothing and keeps what the service needs: rows, sequences, functions', async (service) => {
    const { schema, role } = SERVICES[service];
    const hidden = OWNER_ONLY[service] ?? { tables: [], sequences: [] };
    const all = await objectsOf(db, service);
    expect(all.tables).toEqual(expect.arrayContaining(hidden.tables));
    expect(all.sequences).toEqual(expect.arrayContaining(hidden.sequences));
    const tables = all.tables.filter((t) => !hidden.tables.includes(t));
    const sequences = all.sequences.filter((s) => !hidden.sequences.includes(s));
    const { functions } = all;
    await connected(db.adminUrl, async (c) => {
      const owned = await c.query(
        `SELECT t.relname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = $1 AND t.relowner = $2::regrole
         UNION ALL SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proowner = $2::regrole`,
        [schema, role],
      );
      expect(owned.rows).toEqual([]);
      const missing = await c.query(
        `SELECT t FROM unnest($2::text[]) AS t WHERE NOT has_table_privilege($1, t, 'SELECT, INSERT')
         UNION ALL SELECT f FROM unnest($3::text[]) AS f WHERE NOT has_function_privilege($1, f, 'EXECUTE')
         UNION ALL SELECT s FROM unnest($4::text[]) AS s WHERE NOT has_sequence_privilege($1, s, 'USAGE')`,
        [role, tables, functions, sequences],
      );
      expect(missing.rows).toEqual([]);
      const granted = await c.query(
        `SELECT t FROM unnest($2::text[]) AS t WHERE has_table_privilege($1, t, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
         UNION ALL SELECT s FROM unnest($3::text[]) AS s WHERE has_sequence_privilege($1, s, 'USAGE, SELECT, UPDATE')`,
        [role, hidden.tables, hidden.sequences],
      );
      expect(granted.rows).toEqual([]);
      const journal = await c.query(`SELECT has_table_privilege($1, $2, 'SELECT, INSERT, UPDATE, DELETE') AS any`, [
        role,
        `${schema}.${MIGRATIONS_TABLE}`,
      ]);
      expect(journal.rows).toEqual([{ any: false }]);
    });
  });

  it.each([
    ['ledger-wallets', 'ledger.ledgers', 'UPDATE ledger.ledgers SET amount = amount'],
    ['ledger-wallets', 'ledger.ledgers', 'DELETE FROM ledger.ledgers'],
    ['ledger-wallets', 'ledger.transactions', 'UPDATE ledger.transactions SET metadata = metadata'],
    ['ledger-wallets', 'ledger.intent_events', 'DELETE FROM ledger.intent_events'],
    ['ledger-wallets', 'ledger.accounts', 'DELETE FROM ledger.accounts'],
    ['ledger-wallets', 'ledger.wallets', 'DELETE FROM ledger.wallets'],
    ['ledger-wallets', 'ledger.adjustment_accounts', 'DELETE FROM ledger.adjustment_accounts'],
    ['ledger-wallets', 'ledger.adjustment_accounts', 'UPDATE ledger.adjustment_accounts SET account_id = account_id'],
    // Only the trigger (run as the owner) adds rows: one added by hand would show a phantom adjustment in a holder's history.
    [
      'ledger-wallets',
      'ledger.adjustment_accounts',
      'INSERT INTO ledger.adjustment_accounts (account_id, transaction_id) SELECT a.id, t.id FROM ledger.accounts a, ledger.transactions t LIMIT 1',
    ],
    ['orchestrator', 'orchestrator.saga_events', 'UPDATE orchestrator.saga_events SET step = step'],
    ['orchestrator', 'orchestrator.config_versions', 'DELETE FROM orchestrator.config_versions'],
  ] as [ServiceName, string, string][])(
    'the %s role is not even granted what the guard of %s refuses: %s',
    async (service, _table, sql) => {
      await connected(db.urlFor(service), async (c) => {
        await expect(c.query(sql)).rejects.toMatchObject({ code: '42501' });
      });
    },
  );

  it('a database migrated before the owner role existed is taken over, ending exactly as a fresh one', async () => {
    const fresh = await catalog(db);
    const upgraded = await createTestDatabase();
    try {
      for (const service of SERVICE_NAMES) await revertHandover(upgraded, service);
      // The rollback gives the ledger role its objects back: the defect is there again...
      await connected(upgraded.urlFor('ledger-wallets'), async (c) => {
        await c.query('BEGIN');
        await c.query(`ALTER TABLE ledger.ledgers DISABLE TRIGGER USER`);
        await c.query('ROLLBACK');
      });
      // ...until npm run migrate hands everything over again.
      const ran = await migrateAll(upgraded.adminUrl);
      for (const service of SERVICE_NAMES) expect(ran[service]).toContain(HANDOVER);
      expect(await catalog(upgraded)).toEqual(fresh);
      await expectNoOwnerPowers(upgraded.urlFor('ledger-wallets'), await objectsOf(upgraded, 'ledger-wallets'));
    } finally {
      await upgraded.drop();
    }
  }, 120_000);

  it('the owner role cannot log in', async () => {
    const { rows } = await connected(db.adminUrl, (c) => c.query(`SELECT rolcanlogin FROM pg_roles WHERE rolname = $1`, [OWNER_ROLE]));
    expect(rows).toEqual([{ rolcanlogin: false }]);
  });
});
