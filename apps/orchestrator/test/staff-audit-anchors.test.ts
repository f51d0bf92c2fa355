import { Client } from 'pg';
import { StaffAuditAnchors } from '../src/staff-audit/staff-audit-anchors';
import { type Json, PlatformHarness } from './platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };
const UNKNOWN_CUSTOMER = '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e99';
const T = 'orchestrator.staff_audit_trail';
const HEAD = 'orchestrator.staff_audit_chain_head';
const ANCHORS = 'orchestrator.staff_audit_anchors';

/**
 * Anchors of the staff audit trail: a (seq, hash) signed by the orchestrator with a key the
 * database never sees. Whoever owns the database can switch the triggers off, cut the tail of the
 * trail or rewrite it, and move the chain head so that the walk of the chain alone finds nothing:
 * the anchors still find it. Also `fromSeq` and `full`, the periodic pass and the table's guards.
 */
describe('staff audit trail anchors', () => {
  const h = new PlatformHarness();
  let compliance: string;

  const verify = async (query = ''): Promise<Json> => {
    const res = await h.call('GET', `/api/backoffice/audit-trail/verify${query}`, { token: compliance });
    expect(res.status).toBe(200);
    return res.body;
  };
  /** some staff writes (each leaves a started and an outcome record) */
  const writes = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await h.call('POST', `/api/orchestrator/admin/customers/${UNKNOWN_CUSTOMER}/freeze`, {
        token: compliance,
        body: { reason: `anchor test ${i}` },
      });
      expect(res.body.code).toBe('CUSTOMER_NOT_FOUND');
    }
  };
  /** The walk of the chain alone (the check before anchors existed). */
  const walkAlone = async () => (await h.sql.query(`SELECT intact FROM orchestrator.staff_audit_verify(1)`)).rows[0].intact;

  /** Runs `tamper` as a database owner who switched the triggers off, checks, then puts everything back. */
  async function tampered(tamper: () => Promise<unknown>, check: () => Promise<void>): Promise<void> {
    for (const t of [T, HEAD, ANCHORS]) {
      const copy = `saved_${t.split('.')[1]}`;
      await h.sql.query(`DROP TABLE IF EXISTS ${copy}`);
      await h.sql.query(`CREATE TEMP TABLE ${copy} AS SELECT * FROM ${t}`);
    }
    await h.sql.query(`SET session_replication_role = replica`);
    try {
      await tamper();
    } finally {
      await h.sql.query(`SET session_replication_role = origin`);
    }
    try {
      await check();
    } finally {
      await h.sql.query(`SET session_replication_role = replica`);
      for (const t of [T, HEAD, ANCHORS]) {
        await h.sql.query(`DELETE FROM ${t}`);
        await h.sql.query(`INSERT INTO ${t} SELECT * FROM saved_${t.split('.')[1]}`);
      }
      await h.sql.query(`SET session_replication_role = origin`);
    }
    expect((await verify()).intact).toBe(true);
  }

  beforeAll(async () => {
    // no timer: the test runs the periodic pass itself
    await h.start({ orchestrator: { STAFF_AUDIT_ANCHOR_INTERVAL_MS: '0' } });
    const admin = await h.adminToken();
    const created = await h.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone: '+237690820002', pin: PIN, ...person, role: 'COMPLIANCE' },
    });
    expect(created.status).toBe(201);
    compliance = await h.login('+237690820002', PIN);
  });
  afterAll(() => h.stop());

  it('a check anchors the head; the quick check (full=false) walks only the records after the last anchor', async () => {
    await writes(3);
    const first = await verify();
    expect(first).toMatchObject({ intact: true, from: 1, firstBroken: null, anchors: { checked: 0 } });
    expect(first.anchored).toEqual({ n: 1, seq: first.head.seq, hash: first.head.hash, at: expect.any(String) });
    expect(first.checked).toBe(first.head.seq);
    expect(first.anchors.last).toEqual(first.anchored);

    await writes(2);
    const second = await verify('?full=false');
    expect(second).toMatchObject({ intact: true, from: first.head.seq + 1, anchors: { checked: 1 } });
    // the first check's own record, then two writes of two records each
    expect(second.checked).toBe(second.head.seq - first.head.seq);
    expect(second.checked).toBe(5);
    expect(second.anchored).toMatchObject({ n: 2, seq: second.head.seq });
    const { rows } = await h.sql.query(`SELECT n::int, seq::int, encode(hash, 'hex') AS hash FROM ${ANCHORS} ORDER BY n`);
    expect(rows).toEqual([
      { n: 1, seq: first.head.seq, hash: first.head.hash },
      { n: 2, seq: second.head.seq, hash: second.head.hash },
    ]);
  });

  it('full=true walks from the first record, fromSeq from the one given (a head it did not reach from the last anchor is not anchored); bad values are VALIDATION_ERROR', async () => {
    const full = await verify('?full=true');
    expect(full).toMatchObject({ intact: true, from: 1 });
    expect(full.checked).toBe(full.head.seq);
    const from = await verify('?fromSeq=3');
    expect(from).toMatchObject({ intact: true, from: 3 });
    expect(from.checked).toBe(from.head.seq - 2);
    // a fromSeq past the last anchor: its head is not anchored (the records between were not walked)
    await writes(1);
    const past = await verify(`?fromSeq=${from.head.seq + 2}`);
    expect(past).toMatchObject({ intact: true, anchored: null });
    // above the head: the head alone
    expect(await verify('?fromSeq=999999')).toMatchObject({ intact: true, checked: 0 });
    for (const [query, field, code] of [
      ['fromSeq=0', 'fromSeq', 'INVALID_SEQ'],
      ['fromSeq=abc', 'fromSeq', 'INVALID_SEQ'],
      ['full=yes', 'full', 'INVALID_FULL'],
    ]) {
      const res = await h.call('GET', `/api/backoffice/audit-trail/verify?${query}`, { token: compliance });
      expect([res.status, res.body.code, res.body.errors?.[0]]).toEqual([
        400,
        'VALIDATION_ERROR',
        expect.objectContaining({ field, code }),
      ]);
    }
  });

  it('a record deleted below the last anchor (the anchored one untouched): the default check walks everything and finds it, the quick one cannot', async () => {
    await writes(2);
    const anchored = (await verify()).anchored;
    expect(anchored.seq).toBeGreaterThan(3);
    const victim = anchored.seq - 2;
    await tampered(
      () => h.sql.query(`DELETE FROM ${T} WHERE seq = $1`, [victim]),
      async () => {
        expect(await verify()).toMatchObject({ intact: false, from: 1, firstBroken: { seq: victim, problem: 'MISSING' } });
        // what the quick check is blind to, by design (docs/staff-audit.md)
        expect((await verify('?full=false')).firstBroken).toBeNull();
      },
    );
  });

  it('the tail cut below the last anchor and the head moved back: the walk alone says intact, /verify says ANCHOR_MISSING', async () => {
    await writes(2);
    const anchored = (await verify()).anchored;
    expect(anchored).not.toBeNull();
    await tampered(
      async () => {
        await h.sql.query(`DELETE FROM ${T} WHERE seq >= $1`, [anchored.seq]);
        await h.sql.query(`UPDATE ${HEAD} SET last_seq = seq, last_hash = hash FROM (SELECT seq, hash FROM ${T} WHERE seq = $1) p`, [
          anchored.seq - 1,
        ]);
      },
      async () => {
        expect(await walkAlone()).toBe(true);
        expect(await verify()).toMatchObject({
          intact: false,
          from: null,
          firstBroken: { seq: anchored.seq, problem: 'ANCHOR_MISSING', anchor: anchored.n },
          anchored: null,
        });
        // that check's own record now holds the anchored seq, with another hash; a full walk checks the anchors too
        expect((await verify('?full=true')).firstBroken).toEqual({ seq: anchored.seq, problem: 'ANCHOR_MISMATCH', anchor: anchored.n });
      },
    );
  });

  it('a record at or below the last anchor rewritten with every later hash and the head recomputed: ANCHOR_MISMATCH', async () => {
    await writes(1);
    const anchored = (await verify()).anchored;
    const target = anchored.seq;
    await tampered(
      () =>
        h.sql.query(`
          DO $$ DECLARE r record; prev bytea; BEGIN
            UPDATE ${T} SET reason = 'nothing to see' WHERE seq = ${target};
            SELECT hash INTO prev FROM ${T} WHERE seq = ${target - 1};
            FOR r IN SELECT seq FROM ${T} WHERE seq >= ${target} ORDER BY seq LOOP
              UPDATE ${T} SET prev_hash = prev WHERE seq = r.seq;
              UPDATE ${T} t SET hash = sha256(t.prev_hash || convert_to(orchestrator.staff_audit_canonical(t), 'UTF8'))
               WHERE seq = r.seq RETURNING hash INTO prev;
            END LOOP;
            UPDATE ${HEAD} SET last_hash = prev;
          END $$`),
      async () => {
        expect(await walkAlone()).toBe(true);
        const check = await verify();
        expect(check.firstBroken).toEqual({ seq: anchored.seq, problem: 'ANCHOR_MISMATCH', anchor: anchored.n });
      },
    );
  });

  it('an anchor made in the database, or one removed from the middle: ANCHOR_INVALID', async () => {
    await writes(1);
    const check = await verify();
    const n = check.anchored.n;
    expect(n).toBeGreaterThanOrEqual(3);
    await tampered(
      () =>
        h.sql.query(`INSERT INTO ${ANCHORS} (n, seq, hash, at, mac) SELECT $1, last_seq, last_hash, now(), sha256('forged') FROM ${HEAD}`, [
          n + 1,
        ]),
      async () => expect((await verify()).firstBroken).toMatchObject({ problem: 'ANCHOR_INVALID', anchor: n + 1 }),
    );
    await tampered(
      () => h.sql.query(`DELETE FROM ${ANCHORS} WHERE n = 2`),
      async () => expect((await verify()).firstBroken).toMatchObject({ problem: 'ANCHOR_INVALID', anchor: 3 }),
    );
  });

  it('the periodic pass anchors a head that moved, and skips its turn while another replica holds the lock', async () => {
    const anchors = h.orchestrator.app.get(StaffAuditAnchors);
    await writes(1);
    const before = await h.count(`SELECT count(*) AS n FROM ${ANCHORS}`);
    const pass = await anchors.pass();
    expect(pass).toMatchObject({ intact: true, anchored: { n: before + 1 } });
    expect(await anchors.pass()).toMatchObject({ intact: true, anchored: null });

    const other = new Client({ connectionString: h.db.adminUrl });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock($1)`, [0x616e63686f72]);
      await writes(1);
      expect(await anchors.pass()).toBeNull();
    } finally {
      await other.end();
    }
    expect(await h.count(`SELECT count(*) AS n FROM ${ANCHORS}`)).toBe(before + 1);
  });

  it('anchors are append-only: the runtime role may not UPDATE or DELETE them, the owner is refused by the triggers', async () => {
    const runtime = new Client({ connectionString: h.db.urlFor('orchestrator') });
    await runtime.connect();
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: { code?: string }) => e.code,
      );
    try {
      expect(await failure(runtime.query(`UPDATE ${ANCHORS} SET seq = 1`))).toBe('42501');
      expect(await failure(runtime.query(`DELETE FROM ${ANCHORS}`))).toBe('42501');
      expect(await failure(runtime.query(`TRUNCATE ${ANCHORS}`))).toBe('42501');
      for (const sql of [`UPDATE ${ANCHORS} SET seq = 1`, `DELETE FROM ${ANCHORS}`, `TRUNCATE ${ANCHORS}`]) {
        expect(await failure(h.sql.query(sql))).toBe('23001');
      }
    } finally {
      await runtime.end();
    }
  });
});
