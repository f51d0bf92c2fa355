import { internalListenerOf } from '@mm/platform';
import { MoneyPlatform, type TestUser } from '../../../test/e2e/money-platform';
import { type OpenApiDocument, undocumented } from '../../../test/support/openapi-departures';

const VERIFICATIONS = '/api/v1/compliance/ledger-chain/verifications';

/**
 * The ledger chain's verification through the gateway (docs/ledger-chain.md): a compliance officer
 * runs it, the ledger records the officer as the one who asked, a raw-SQL edit of an entry comes back
 * as the first broken link, every answer is documented, other roles are refused and the run is in the
 * staff audit trail.
 */
describe('compliance: ledger chain verifications through the gateway', () => {
  const p = new MoneyPlatform();
  let officer: TestUser;
  let customer: TestUser;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    await p.start();
    [officer, customer] = [await p.register('COMPLIANCE'), await p.register('CUSTOMER')];
    await p.fund(customer.accounts.XAF, 5_000);
    doc = (await fetch(`${internalListenerOf(p.gateway.app)!.url}/openapi.json`).then((r) => r.json())) as OpenApiDocument;
  }, 120_000);
  afterAll(() => p.stop());

  it('verifies intact, then names a raw edit as the first broken link, each run recorded under the officer', async () => {
    const intact = await p.call('POST', VERIFICATIONS, { token: officer.token });
    expect(intact.status).toBe(200);
    expect(intact.body).toMatchObject({ status: 'INTACT', firstBreak: null, requestedBy: officer.userId });
    expect(undocumented(doc, 'POST', VERIFICATIONS, intact)).toEqual([]);

    const { rows } = await p.sql.query<{ id: string; transaction_id: string }>(
      `SELECT id, transaction_id FROM ledger.ledgers WHERE account_id = $1 ORDER BY chain_seq LIMIT 1`,
      [customer.accounts.XAF],
    );
    const edit = async (delta: number) => {
      const c = await p.sql.connect();
      try {
        await c.query('BEGIN');
        await c.query('SET LOCAL session_replication_role = replica');
        await c.query('UPDATE ledger.ledgers SET amount = amount + $2 WHERE id = $1', [rows[0].id, delta]);
        await c.query('COMMIT');
      } finally {
        c.release();
      }
    };
    await edit(1_000_000);
    try {
      const broken = await p.call('POST', VERIFICATIONS, { token: await p.adminToken() });
      expect(broken.status).toBe(200);
      expect(broken.body).toMatchObject({
        status: 'BROKEN',
        brokenAccounts: 1,
        firstBreak: { kind: 'EDITED', accountId: customer.accounts.XAF, entryId: rows[0].id, transactionId: rows[0].transaction_id },
      });
    } finally {
      await edit(-1_000_000);
    }

    const listed = await p.call('GET', `${VERIFICATIONS}?limit=2`, { token: officer.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((r: { status: string }) => r.status)).toEqual(['BROKEN', 'INTACT']);
    expect(listed.body[1]).toMatchObject({ requestedBy: officer.userId, requestedByRoles: ['COMPLIANCE'], caller: 'orchestrator' });
    expect(undocumented(doc, 'GET', VERIFICATIONS, listed)).toEqual([]);

    const trail = await p.sql.query(
      `SELECT phase FROM orchestrator.staff_audit_trail WHERE actor_user_id = $1 AND action = $2 ORDER BY seq`,
      [officer.userId, `POST ${VERIFICATIONS}`],
    );
    expect(trail.rows.map((r) => r.phase)).toEqual(['started', 'outcome']);
  });

  it('is refused to customers and to a malformed limit, with stable codes', async () => {
    const refused = await p.call('POST', VERIFICATIONS, { token: customer.token });
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    const bad = await p.call('GET', `${VERIFICATIONS}?limit=0`, { token: officer.token });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
