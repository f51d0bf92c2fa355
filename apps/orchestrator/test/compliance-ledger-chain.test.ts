import { internalListenerOf } from '@mm/platform';
import { ChainAnchors } from '../../ledger-wallets/src/chain/chain-anchors.service';
import { LedgerChainWitness } from '../src/compliance/ledger-chain-witness.service';
import { MoneyPlatform, type TestUser } from '../../../test/e2e/money-platform';
import { type OpenApiDocument, undocumented } from '../../../test/support/openapi-departures';
import { rechainSql } from '../../../test/support/ledger-chain-tamper';

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
    await p.start({ orchestratorEnv: { LEDGER_CHAIN_WITNESS_INTERVAL_MS: '0' } });
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

  /** Runs `sql` as a superuser with every trigger off, as someone rewriting history would. */
  const raw = async (sql: string, params: unknown[] = []) => {
    const c = await p.sql.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL session_replication_role = replica');
      const res = await c.query(sql, params);
      await c.query('COMMIT');
      return res.rows;
    } finally {
      c.release();
    }
  };

  /** What an attacker who knows the algorithm does after an edit: recomputes the account's whole chain and its head. */
  const rechain = (account: string) => raw(rechainSql(account));

  // Last: it deletes anchors for good (this file's database is its own copy).
  it("catches anchors rolled back under a rewrite through the orchestrator's witness", async () => {
    const anchors = p.ledger.app.get(ChainAnchors);
    const witness = p.gateway.app.get(LedgerChainWitness);
    expect(await anchors.anchorNow()).toMatchObject({ status: 'WRITTEN', n: 1 });
    expect(await witness.runNow()).toEqual({ status: 'RECORDED', n: 1 });
    await p.fund(customer.accounts.XAF, 7_000);
    expect(await anchors.anchorNow()).toMatchObject({ status: 'WRITTEN', n: 2 });
    expect(await witness.runNow()).toEqual({ status: 'RECORDED', n: 2 });
    expect(await witness.runNow()).toEqual({ status: 'UNCHANGED', n: 2 });
    const intact = await p.call('POST', VERIFICATIONS, { token: officer.token });
    expect(intact.body).toMatchObject({ status: 'INTACT', anchor: { status: 'VERIFIED', n: 2 } });

    // A superuser deletes the newest anchor, turns the 7 000 into 70 000 and recomputes the chain:
    // the ledger's anchors look complete, and its next pass signs the rewrite as a new anchor 2.
    await raw(`DELETE FROM ledger.chain_anchor_heads WHERE anchor_n = 2`);
    await raw(`DELETE FROM ledger.chain_anchors WHERE n = 2`);
    // the anchor job's cache of the anchored heads, put back as anchor 1 left it
    await raw(`DELETE FROM ledger.chain_anchored_heads`);
    await raw(`INSERT INTO ledger.chain_anchored_heads SELECT DISTINCT ON (account_id) account_id, anchor_n, seq, hash
                 FROM ledger.chain_anchor_heads ORDER BY account_id, anchor_n DESC`);
    const [entry] = await raw(`SELECT id FROM ledger.ledgers WHERE account_id = $1 ORDER BY chain_seq DESC LIMIT 1`, [
      customer.accounts.XAF,
    ]);
    await raw(`UPDATE ledger.ledgers SET amount = 70000 WHERE id = $1`, [entry.id]);
    await rechain(customer.accounts.XAF);
    expect(await anchors.anchorNow()).toMatchObject({ status: 'WRITTEN', n: 2 });

    const rolledBack = await p.call('POST', VERIFICATIONS, { token: officer.token });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body).toMatchObject({
      status: 'BROKEN',
      anchor: { status: 'MISMATCH', n: 2 },
      firstBreak: { kind: 'ANCHOR_ROLLED_BACK', accountId: null, detail: expect.stringContaining('anchor 2') },
    });
    expect(undocumented(doc, 'POST', VERIFICATIONS, rolledBack)).toEqual([]);
    // the ledger alone would have said INTACT: its own record of the run says so, the list shows the witness's verdict
    const [stored] = await p.sql
      .query(`SELECT status FROM ledger.chain_verifications WHERE id = $1`, [rolledBack.body.id])
      .then((r) => r.rows);
    expect(stored.status).toBe('INTACT');
    const listed = await p.call('GET', `${VERIFICATIONS}?limit=1`, { token: officer.token });
    expect(listed.body[0]).toMatchObject({ id: rolledBack.body.id, status: 'BROKEN', firstBreak: { kind: 'ANCHOR_ROLLED_BACK' } });
    // the scheduled witness pass sees it too, and copies nothing
    expect(await witness.runNow()).toMatchObject({ status: 'ROLLED_BACK', witnessed: { n: 2 } });

    // Every anchor deleted: the ledger reports none, which after anchors existed is a rollback too.
    await raw(`DELETE FROM ledger.chain_anchored_heads`);
    await raw(`DELETE FROM ledger.chain_anchor_heads`);
    await raw(`DELETE FROM ledger.chain_anchors`);
    const none = await p.call('POST', VERIFICATIONS, { token: officer.token });
    expect(none.body).toMatchObject({
      status: 'BROKEN',
      anchor: { status: 'NONE' },
      firstBreak: { kind: 'ANCHOR_ROLLED_BACK', detail: expect.stringContaining('no anchor at all') },
    });
    expect(await witness.runNow()).toMatchObject({ status: 'ROLLED_BACK', found: 'no anchor at all' });
  });
});
