import { Client } from 'pg';
import { RELAXED_COMMIT } from '../src/common/sql';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';

describe('auth: relaxed commit of harmless writes', () => {
  let db: TestDatabase;
  let pg: Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.urlFor('auth') });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await db.drop();
  });

  it('is off for the statement that asks for it, and only for it', async () => {
    await pg.query(`INSERT INTO auth.idp_users (id, phone, pin_hash) VALUES (gen_random_uuid(), '+237690000001', 'x')`);
    const during = await pg.query(
      `UPDATE auth.idp_users SET pin_hash = 'y' FROM ${RELAXED_COMMIT} WHERE phone = '+237690000001' RETURNING current_setting('synchronous_commit') AS s`,
    );
    expect(during.rows).toEqual([{ s: 'off' }]);
    // The same pooled connection, next statement: back to the durable default.
    expect((await pg.query(`SHOW synchronous_commit`)).rows[0].synchronous_commit).toBe('on');
    expect((await pg.query(`SELECT pin_hash FROM auth.idp_users`)).rows).toEqual([{ pin_hash: 'y' }]);
  });
});
