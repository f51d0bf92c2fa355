import { Client } from 'pg';
import { SERVICES } from '@mm/contracts';
import { type Answer, type Json, PlatformHarness } from './platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };
const UNKNOWN_CUSTOMER = '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e99';
const FREEZE = 'POST /api/orchestrator/admin/customers/:customerId/freeze';

/**
 * The staff audit trail against the real auth, ledger and orchestrator on a cloned database:
 * what is recorded (staff writes, refusals, marked reads; never customers), the hash chain under
 * concurrent writers, tampering by raw SQL found by /verify, and the database's own guards.
 */
describe('staff audit trail', () => {
  const h = new PlatformHarness();
  let admin: string;
  let compliance: string;
  let support: string;
  let complianceUserId: string;
  let supportUserId: string;
  /** the person staff act on (frozen in the first test, which ends its sessions) */
  let customer: { customerId: string; userId: string };
  /** another customer, who acts */
  let actingCustomer: { customerId: string; userId: string };
  let customerToken: string;

  const trail = async (query = ''): Promise<Json[]> => {
    const res = await h.call('GET', `/api/backoffice/audit-trail${query}`, { token: compliance });
    expect(res.status).toBe(200);
    return res.body.items;
  };
  const byRequest = async (res: Answer): Promise<Json[]> => trail(`?requestId=${res.headers.get('x-request-id')}`);
  /** the full walk: the default one starts after the last anchor (staff-audit-anchors.test.ts) */
  const verify = async (): Promise<Json> => {
    const res = await h.call('GET', '/api/backoffice/audit-trail/verify?full=true', { token: compliance });
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    await h.start();
    admin = await h.adminToken();
    for (const [role, phone] of [
      ['SUPPORT', '+237690810001'],
      ['COMPLIANCE', '+237690810002'],
    ]) {
      const res = await h.call('POST', '/api/orchestrator/admin/staff', { token: admin, body: { phone, pin: PIN, ...person, role } });
      expect(res.status).toBe(201);
    }
    support = await h.login('+237690810001', PIN);
    compliance = await h.login('+237690810002', PIN);
    supportUserId = (await h.call('GET', '/api/orchestrator/me', { token: support })).body.userId;
    complianceUserId = (await h.call('GET', '/api/orchestrator/me', { token: compliance })).body.userId;
    const registered = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone: '+237690810010', pin: PIN, ...person } });
    expect(registered.status).toBe(201);
    customer = registered.body;
    const other = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone: '+237690810011', pin: PIN, ...person } });
    expect(other.status).toBe(201);
    actingCustomer = other.body;
    customerToken = await h.login('+237690810011', PIN);
  });
  afterAll(() => h.stop());

  it('records a staff write twice: started (before it ran) then its outcome, with actor, action, target, reason and request id', async () => {
    const res = await h.call('POST', `/api/orchestrator/admin/customers/${customer.customerId}/freeze`, {
      token: compliance,
      body: { reason: 'suspected account takeover, ticket 4821' },
    });
    expect(res.status).toBe(200);
    const records = await byRequest(res);
    const common = {
      actor: { userId: complianceUserId, role: 'COMPLIANCE' },
      action: FREEZE,
      actionName: 'admin.freeze',
      target: { type: 'person', id: customer.customerId },
      reason: 'suspected account takeover, ticket 4821',
      requestId: res.headers.get('x-request-id'),
      details: { params: { customerId: customer.customerId } },
    };
    // newest first
    expect(records).toEqual([
      expect.objectContaining({ ...common, phase: 'outcome', outcome: { status: 200, code: null } }),
      expect.objectContaining({ ...common, phase: 'started', outcome: null }),
    ]);
    expect(records[0].seq).toBeGreaterThan(records[1].seq);
    expect(records[0].hash).toMatch(/^[0-9a-f]{64}$/);
    // the body's other fields never reach the trail
    expect(JSON.stringify(records[0])).not.toContain('"body"');
  });

  it('records a refused staff write (403 from the access guard) with the refusal code', async () => {
    const res = await h.call('POST', `/api/orchestrator/admin/customers/${customer.customerId}/unfreeze`, {
      token: support,
      body: { reason: 'trying anyway' },
    });
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    // refused by the access guard, before anything could run: one record, the outcome, tagged all the same
    expect(await byRequest(res)).toEqual([
      expect.objectContaining({
        actor: { userId: supportUserId, role: 'SUPPORT' },
        action: 'POST /api/orchestrator/admin/customers/:customerId/unfreeze',
        actionName: 'admin.unfreeze',
        target: { type: 'person', id: customer.customerId },
        reason: 'trying anyway',
        phase: 'outcome',
        outcome: { status: 403, code: 'FORBIDDEN' },
      }),
    ]);
    // and a validation refusal after the guard (validation runs after the started record)
    const invalid = await h.call('POST', `/api/orchestrator/admin/customers/${customer.customerId}/freeze`, {
      token: compliance,
      body: {},
    });
    expect(invalid.body.code).toBe('VALIDATION_ERROR');
    expect((await byRequest(invalid)).map((r) => [r.phase, r.outcome])).toEqual([
      ['outcome', { status: 400, code: 'VALIDATION_ERROR' }],
      ['started', null],
    ]);
  });

  it('records a marked read with its query, and not an unmarked one', async () => {
    const read = await h.call('GET', `/api/backoffice/audit-trail?actor=${supportUserId}&limit=5`, { token: compliance });
    expect(read.status).toBe(200);
    expect(await byRequest(read)).toEqual([
      expect.objectContaining({
        actor: { userId: complianceUserId, role: 'COMPLIANCE' },
        action: 'GET /api/backoffice/audit-trail',
        actionName: 'staffAudit.search',
        target: { type: 'audit-trail', id: null },
        phase: 'outcome',
        outcome: { status: 200, code: null },
        details: { query: { actor: supportUserId, limit: '5' } },
      }),
    ]);
    const me = await h.call('GET', '/api/orchestrator/me', { token: compliance });
    expect(me.status).toBe(200);
    expect(await byRequest(me)).toEqual([]);
  });

  it('records nothing of a customer, whatever the request', async () => {
    const update = await h.call('PATCH', '/api/orchestrator/me/profile', { token: customerToken, body: { firstName: 'Awaa' } });
    expect(update.status).toBe(200);
    const refused = await h.call('GET', '/api/backoffice/audit-trail', { token: customerToken });
    expect(refused.status).toBe(403);
    expect(await byRequest(update)).toEqual([]);
    expect(await byRequest(refused)).toEqual([]);
    expect(
      await h.count(`SELECT count(*) AS n FROM orchestrator.staff_audit_trail WHERE actor_user_id = $1`, [actingCustomer.userId]),
    ).toBe(0);
  });

  it('records a staff write proxied to auth (/api/auth/logout): started and outcome; never a customer’s', async () => {
    const secondSession = await h.login('+237690810001', PIN);
    const res = await h.call('POST', '/api/auth/logout', { token: secondSession });
    expect(res.status).toBe(204);
    expect(await byRequest(res)).toEqual([
      expect.objectContaining({
        actor: { userId: supportUserId, role: 'SUPPORT' },
        action: 'POST /api/auth/logout',
        actionName: null,
        phase: 'outcome',
        outcome: { status: 204, code: null },
      }),
      expect.objectContaining({ action: 'POST /api/auth/logout', phase: 'started', outcome: null }),
    ]);
    const customerSession = await h.login('+237690810011', PIN);
    const out = await h.call('POST', '/api/auth/logout', { token: customerSession });
    expect(out.status).toBe(204);
    expect(await byRequest(out)).toEqual([]);
    // a proxied read is not a write: not recorded
    const me = await h.call('GET', '/api/auth/me', { token: support });
    expect(me.status).toBe(200);
    expect(await byRequest(me)).toEqual([]);
  });

  it('names targets a write carries in its body (bulk decision ids, a hold’s account, a correction’s transaction)', async () => {
    const ids = ['0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d', '1d2c4e6a-8b93-4a0b-b7f5-9b4a6d2f8c3e'];
    const bulk = await h.call('POST', '/api/backoffice/approvals/decisions', {
      token: compliance,
      body: { ids, decision: 'REJECT', reason: 'month-end review' },
    });
    expect(bulk.status).toBe(200);
    for (const record of await byRequest(bulk)) {
      expect(record).toMatchObject({ target: { type: 'approval', id: null }, details: { targets: ids } });
    }
    const account = '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c';
    const hold = await h.call('POST', '/api/backoffice/ledger/holds', {
      token: compliance,
      body: { accountId: account, amount: 2500, reason: 'suspected takeover' },
    });
    const holdRecords = await byRequest(hold);
    expect(holdRecords.map((r) => [r.phase, r.target])).toEqual([
      ['outcome', { type: 'account', id: account }],
      ['started', { type: 'account', id: account }],
    ]);
    const reversal = await h.call('POST', '/api/backoffice/ledger/corrections', {
      token: compliance,
      body: { kind: 'REVERSAL', referenceId: 'MMP000000000001', reason: 'duplicate payment' },
    });
    expect((await byRequest(reversal))[0].target).toEqual({ type: 'transaction', id: 'MMP000000000001' });
  });

  it('roles: audit.read for COMPLIANCE and ADMIN; SUPPORT gets 403 naming audit.read, itself recorded', async () => {
    expect((await h.call('GET', '/api/backoffice/audit-trail', { token: admin })).status).toBe(200);
    expect((await h.call('GET', '/api/backoffice/audit-trail/verify', { token: admin })).status).toBe(200);
    for (const path of ['/api/backoffice/audit-trail', '/api/backoffice/audit-trail/verify']) {
      const res = await h.call('GET', path, { token: support });
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(res.body.message).toContain('audit.read');
      expect(await byRequest(res)).toEqual([
        expect.objectContaining({ actor: { userId: supportUserId, role: 'SUPPORT' }, action: `GET ${path}` }),
      ]);
    }
    expect((await h.call('GET', '/api/backoffice/audit-trail')).status).toBe(401);
  });

  it('searches by filters and pages newest first without overlap; bad filters are VALIDATION_ERROR with field codes', async () => {
    const refused = await trail(`?actor=${supportUserId}&outcome=refused`);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused.every((r) => r.actor.userId === supportUserId && r.outcome.status >= 400)).toBe(true);
    expect((await trail(`?action=admin.freeze&code=VALIDATION_ERROR`)).every((r) => r.action === FREEZE)).toBe(true);
    expect((await trail(`?targetType=person&targetId=${customer.customerId}`)).length).toBeGreaterThanOrEqual(2);

    const first = await h.call('GET', '/api/backoffice/audit-trail?limit=3', { token: compliance });
    const second = await h.call('GET', `/api/backoffice/audit-trail?limit=3&cursor=${first.body.nextCursor}`, { token: compliance });
    const seqs = [...first.body.items, ...second.body.items].map((r: Json) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(new Set(seqs).size).toBe(6);
    expect(second.body.items[0].seq).toBe(first.body.items[2].seq - 1);

    for (const [query, field, code] of [
      ['limit=0', 'limit', 'INVALID_LIMIT'],
      ['cursor=abc', 'cursor', 'INVALID_CURSOR'],
      ['actor=nope', 'actor', 'INVALID_UUID'],
      ['role=CUSTOMER', 'role', 'INVALID_ROLE'],
      ['from=yesterday', 'from', 'INVALID_DATE'],
      ['outcome=maybe', 'outcome', 'INVALID_OUTCOME'],
    ]) {
      const res = await h.call('GET', `/api/backoffice/audit-trail?${query}`, { token: compliance });
      expect([res.status, res.body.code, res.body.errors?.[0]]).toEqual([
        400,
        'VALIDATION_ERROR',
        expect.objectContaining({ field, code }),
      ]);
    }
  });

  it('50 concurrent staff writes make one chain: seq without gaps, every record linked to the one before', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', `/api/orchestrator/admin/customers/${UNKNOWN_CUSTOMER}/freeze`, {
          token: i % 2 ? compliance : admin,
          body: { reason: `concurrent ${i}` },
        }),
      ),
    );
    expect(answers.map((a) => a.body.code)).toEqual(Array(50).fill('CUSTOMER_NOT_FOUND'));
    const { rows } = await h.sql.query(
      `SELECT seq::int, encode(prev_hash, 'hex') AS prev, encode(hash, 'hex') AS hash FROM orchestrator.staff_audit_trail ORDER BY seq`,
    );
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    rows.slice(1).forEach((r, i) => expect(r.prev).toBe(rows[i].hash));
    expect(new Set(answers.map((a) => a.headers.get('x-request-id'))).size).toBe(50);
    expect(
      await h.count(`SELECT count(DISTINCT request_id) AS n FROM orchestrator.staff_audit_trail WHERE reason LIKE 'concurrent %'`),
    ).toBe(50);
    const check = await verify();
    expect(check).toMatchObject({
      intact: true,
      from: 1,
      checked: rows.length,
      firstBroken: null,
      head: { seq: rows.length, hash: rows[rows.length - 1].hash },
    });
  });

  describe('tampering by raw SQL as the superuser (triggers switched off) is found by /verify', () => {
    /** Runs `change` with the append-only trigger off, checks /verify, then puts the chain back as it was. */
    async function tamper(seq: number, ...changes: string[]): Promise<Json> {
      await h.sql.query(`DROP TABLE IF EXISTS saved`);
      await h.sql.query(`CREATE TEMP TABLE saved AS SELECT * FROM orchestrator.staff_audit_trail WHERE seq = ${seq}`);
      await h.sql.query(`ALTER TABLE orchestrator.staff_audit_trail DISABLE TRIGGER trg_staff_audit_trail_append_only`);
      try {
        for (const change of changes) await h.sql.query(change, [seq]);
      } finally {
        await h.sql.query(`ALTER TABLE orchestrator.staff_audit_trail ENABLE TRIGGER trg_staff_audit_trail_append_only`);
      }
      const check = await verify();
      // restore: no trigger runs in replica mode, so the saved row goes back unchanged
      await h.sql.query(`SET session_replication_role = replica`);
      await h.sql.query(`DELETE FROM orchestrator.staff_audit_trail WHERE seq = ${seq}`);
      await h.sql.query(`INSERT INTO orchestrator.staff_audit_trail SELECT * FROM saved`);
      await h.sql.query(`SET session_replication_role = origin`);
      expect((await verify()).intact).toBe(true);
      return check;
    }
    const lastSeq = async () => Number((await h.sql.query(`SELECT max(seq) AS n FROM orchestrator.staff_audit_trail`)).rows[0].n);

    it('a deleted record in the middle: MISSING at its seq', async () => {
      expect((await tamper(7, `DELETE FROM orchestrator.staff_audit_trail WHERE seq = $1`)).firstBroken).toEqual({
        seq: 7,
        problem: 'MISSING',
        anchor: null,
      });
    });

    it('an edited record: HASH_MISMATCH at its seq; edited with its hash recomputed: BROKEN_LINK at the next', async () => {
      const edited = await tamper(5, `UPDATE orchestrator.staff_audit_trail SET reason = 'nothing to see' WHERE seq = $1`);
      expect(edited).toMatchObject({ intact: false, checked: 4, firstBroken: { seq: 5, problem: 'HASH_MISMATCH' } });
      const rehashed = await tamper(
        5,
        `UPDATE orchestrator.staff_audit_trail SET actor_role = 'ADMIN' WHERE seq = $1`,
        `UPDATE orchestrator.staff_audit_trail t SET hash = sha256(t.prev_hash || convert_to(orchestrator.staff_audit_canonical(t), 'UTF8')) WHERE seq = $1`,
      );
      expect(rehashed.firstBroken).toEqual({ seq: 6, problem: 'BROKEN_LINK', anchor: null });
    });

    it('the last record deleted: MISSING at its seq (the chain head still counts it)', async () => {
      const last = await lastSeq();
      const check = await tamper(last, `DELETE FROM orchestrator.staff_audit_trail WHERE seq = $1`);
      expect(check).toMatchObject({
        intact: false,
        checked: last - 1,
        firstBroken: { seq: last, problem: 'MISSING' },
        head: { seq: last },
      });
    });
  });

  describe('guards in the database', () => {
    let runtime: Client;
    beforeAll(async () => {
      runtime = new Client({ connectionString: h.db.urlFor('orchestrator') });
      await runtime.connect();
    });
    afterAll(() => runtime.end());

    const failure = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: { code?: string }) => e.code,
      );

    it('the runtime role cannot UPDATE, DELETE or TRUNCATE the trail nor move the head (permission denied)', async () => {
      expect(await failure(runtime.query(`UPDATE orchestrator.staff_audit_trail SET reason = 'x' WHERE seq = 1`))).toBe('42501');
      expect(await failure(runtime.query(`DELETE FROM orchestrator.staff_audit_trail WHERE seq = 1`))).toBe('42501');
      expect(await failure(runtime.query(`TRUNCATE orchestrator.staff_audit_trail`))).toBe('42501');
      expect(await failure(runtime.query(`UPDATE orchestrator.staff_audit_chain_head SET last_seq = 0`))).toBe('42501');
    });

    it('the runtime role cannot choose seq, time or hash: the database sets them', async () => {
      const { rows } = await runtime.query(
        `INSERT INTO orchestrator.staff_audit_trail (seq, at, actor_user_id, actor_role, action, request_id, outcome_status, prev_hash, hash)
         VALUES (1, '2000-01-01Z', $1, 'ADMIN', 'POST /forged', 'forged', 200, '\\x00', '\\x00')
         RETURNING seq::int, at, encode(hash, 'hex') AS hash`,
        [complianceUserId],
      );
      expect(rows[0].seq).toBeGreaterThan(1);
      expect(new Date(rows[0].at).getFullYear()).toBeGreaterThan(2000);
      expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await verify()).intact).toBe(true);
    });

    it('even the owner is refused UPDATE, DELETE and TRUNCATE by the triggers', async () => {
      for (const sql of [
        `UPDATE orchestrator.staff_audit_trail SET reason = 'x' WHERE seq = 1`,
        `DELETE FROM orchestrator.staff_audit_trail WHERE seq = 1`,
        `TRUNCATE orchestrator.staff_audit_trail`,
        `UPDATE orchestrator.staff_audit_chain_head SET last_seq = 0`,
      ]) {
        expect(await failure(h.sql.query(sql))).toBe('23001');
      }
    });

    it('a write whose started record cannot be written is refused (503 AUDIT_TRAIL_UNAVAILABLE) and does not run; a read is withheld; customers are unaffected', async () => {
      const role = SERVICES.orchestrator.role;
      const registered = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone: '+237690810012', pin: PIN, ...person } });
      expect(registered.status).toBe(201);
      const statusOf = async (customerId: string) =>
        (await h.sql.query(`SELECT status FROM orchestrator.customers WHERE id = $1`, [customerId])).rows[0].status;
      const pendingFor = () =>
        h.count(`SELECT count(*) AS n FROM orchestrator.approval_requests WHERE payload::text LIKE $1`, [`%${customer.userId}%`]);
      expect(await statusOf(customer.customerId)).toBe('frozen');
      const pendingBefore = await pendingFor();
      await h.sql.query(`REVOKE INSERT ON orchestrator.staff_audit_trail FROM ${role}`);
      try {
        // an immediate write: the customer stays active
        const freeze = await h.call('POST', `/api/orchestrator/admin/customers/${registered.body.customerId}/freeze`, {
          token: compliance,
          body: { reason: 'while the trail is down' },
        });
        expect([freeze.status, freeze.body.code]).toEqual([503, 'AUDIT_TRAIL_UNAVAILABLE']);
        expect(freeze.body.message).toContain('not carried out');
        // a submission to the maker-checker engine: no request is created
        const unfreeze = await h.call('POST', `/api/backoffice/people/${customer.userId}/unfreeze`, {
          token: compliance,
          body: { reason: 'while the trail is down' },
        });
        expect([unfreeze.status, unfreeze.body.code]).toEqual([503, 'AUDIT_TRAIL_UNAVAILABLE']);
        const read = await h.call('GET', '/api/backoffice/audit-trail', { token: compliance });
        expect([read.status, read.body.code, read.body.items]).toEqual([503, 'AUDIT_TRAIL_UNAVAILABLE', undefined]);
        expect((await h.call('GET', '/api/orchestrator/me', { token: customerToken })).status).toBe(200);
      } finally {
        await h.sql.query(`GRANT INSERT ON orchestrator.staff_audit_trail TO ${role}`);
      }
      expect(await statusOf(registered.body.customerId)).toBe('active');
      expect(await pendingFor()).toBe(pendingBefore);
      expect((await h.call('GET', '/api/backoffice/audit-trail', { token: compliance })).status).toBe(200);
      // and once the trail is back, the same submission runs (so the 503 above was the trail's doing)
      const unfreeze = await h.call('POST', `/api/backoffice/people/${customer.userId}/unfreeze`, {
        token: compliance,
        body: { reason: 'the trail is back' },
      });
      expect(unfreeze.status).toBe(202);
      expect(await pendingFor()).toBe(pendingBefore + 1);
      // the id of the request it created is in the outcome record
      const [outcome] = await byRequest(unfreeze);
      expect(outcome).toMatchObject({ phase: 'outcome', outcome: { status: 202 }, details: { resultId: unfreeze.body.id } });
    });
  });
});
