import { Client } from 'pg';
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { OWNER_ROLE, migrateAll } from '../../tools/db';
import { type TestDatabase, createTestDatabase } from '../support/test-env';

async function asRole<T>(db: TestDatabase, service: ServiceName, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: db.urlFor(service) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('database: one schema and one role per service', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    // A ledger table with a row, created exactly as a ledger migration would: as the owner role.
    const admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    try {
      await admin.query(
        `SET ROLE ${OWNER_ROLE}; CREATE TABLE ledger.isolation_probe (id int primary key, balance bigint); INSERT INTO ledger.isolation_probe VALUES (1, 500)`,
      );
    } finally {
      await admin.end();
    }
  });
  afterAll(() => db.drop());

  it('the ledger role reads its own data, in a table a later migration created (default privileges)', async () => {
    const { rows } = await asRole(db, 'ledger-wallets', (c) => c.query('SELECT balance FROM ledger.isolation_probe'));
    expect(rows).toEqual([{ balance: '500' }]);
  });

  it.each(SERVICE_NAMES.filter((s) => s !== 'ledger-wallets'))('the %s role can neither read nor write ledger data', async (service) => {
    await asRole(db, service, async (c) => {
      await expect(c.query('SELECT * FROM ledger.isolation_probe')).rejects.toMatchObject({ code: '42501' });
      await expect(c.query('SELECT * FROM ledger.migrations')).rejects.toMatchObject({ code: '42501' });
      await expect(c.query('UPDATE ledger.isolation_probe SET balance = 0')).rejects.toMatchObject({ code: '42501' });
      await expect(c.query('CREATE TABLE ledger.intruder (id int)')).rejects.toMatchObject({ code: '42501' });
    });
  });

  it.each(SERVICE_NAMES)('the %s role creates nothing: not in its own schema, not in public, not in another one', async (service) => {
    const own = SERVICES[service].schema;
    const other = SERVICES[service === 'auth' ? 'partners' : 'auth'].schema;
    await asRole(db, service, async (c) => {
      await expect(c.query(`CREATE TABLE ${own}.role_probe (id int)`)).rejects.toMatchObject({ code: '42501' });
      await expect(c.query('CREATE TABLE public.intruder (id int)')).rejects.toMatchObject({ code: '42501' });
      await expect(c.query(`CREATE TABLE ${other}.intruder (id int)`)).rejects.toMatchObject({ code: '42501' });
    });
  });

  it('npm run migrate is idempotent: a second run applies nothing and every schema stays with the owner role', async () => {
    const again = await migrateAll(db.adminUrl);
    for (const service of SERVICE_NAMES) expect(again[service]).toEqual([]);
    const owners = await asRole(db, 'ledger-wallets', (c) =>
      c.query<{ nspname: string; owner: string }>(
        `SELECT n.nspname, r.rolname AS owner FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner WHERE n.nspname = ANY($1) ORDER BY 1`,
        [SERVICE_NAMES.map((s) => SERVICES[s].schema)],
      ),
    );
    expect(Object.fromEntries(owners.rows.map((r) => [r.nspname, r.owner]))).toEqual(
      Object.fromEntries(SERVICE_NAMES.map((s) => [SERVICES[s].schema, OWNER_ROLE])),
    );
  });
});
