import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';

/**
 * orchestrator.approval_requests keeps the engine's rules by itself (the last line of defence): a
 * four-eyes request is never decided by its maker, two identical requests are never live at once,
 * statuses only move forward, a final one never changes, nothing is deleted. Checked with the
 * service's own role, as a bug in the service would run.
 */
describe('approval_requests: the database guards', () => {
  let db: TestDatabase;
  let runtime: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    runtime = new Client({ connectionString: db.urlFor('orchestrator') });
    await runtime.connect();
  });
  afterAll(async () => {
    await runtime?.end();
    await db?.drop();
  });

  async function insert(overrides: { dedup?: string; fourEyes?: boolean } = {}): Promise<string> {
    const id = randomUUID();
    await runtime.query(
      `INSERT INTO orchestrator.approval_requests (id, action, status, four_eyes, target_type, target_id, summary, payload, dedup_key,
                                                   reason, maker_id, maker_role, expires_at)
       VALUES ($1, 'CONFIG_CHANGE', 'PENDING', $2, 'config', 'risk', 'a change', '{}'::jsonb, $3, 'because', 'maker-1', 'ADMIN',
               now() + interval '1 hour')`,
      [id, overrides.fourEyes ?? true, overrides.dedup ?? randomUUID()],
    );
    return id;
  }
  const approve = (id: string, checker: string) =>
    runtime.query(
      `UPDATE orchestrator.approval_requests SET status = 'EXECUTING', checker_id = $2, checker_role = 'ADMIN', decided_at = now(), claimed_at = now()
        WHERE id = $1`,
      [id, checker],
    );
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => 'succeeded',
      (e: { code?: string; message: string }) => `${e.code} ${e.message}`,
    );

  it('refuses a four-eyes request checked by its maker, and lets a one-person request be', async () => {
    expect(await failure(approve(await insert(), 'maker-1'))).toMatch(/^23514 .*CHK_approval_requests_four_eyes/);
    expect(await failure(approve(await insert({ fourEyes: false }), 'maker-1'))).toBe('succeeded');
  });

  it('refuses a second live request with the same key, and takes it again once the first is decided', async () => {
    const first = await insert({ dedup: 'same' });
    expect(await failure(insert({ dedup: 'same' }))).toMatch(/^23505 .*UQ_approval_requests_live/);
    await runtime.query(
      `UPDATE orchestrator.approval_requests SET status = 'REJECTED', checker_id = 'checker-1', checker_role = 'ADMIN', decided_at = now(),
              decision_reason = 'no' WHERE id = $1`,
      [first],
    );
    expect(await failure(insert({ dedup: 'same' }))).toBe('succeeded');
  });

  it('never changes a final request, never moves a status backwards, never changes what the maker submitted', async () => {
    const id = await insert();
    await approve(id, 'checker-1');
    // back to PENDING only as a whole un-claim (the checker refused where the action runs), never keeping the decision
    expect(await failure(runtime.query(`UPDATE orchestrator.approval_requests SET status = 'PENDING' WHERE id = $1`, [id]))).toMatch(
      /^23001 .*a claim is undone whole/,
    );
    expect(await failure(runtime.query(`UPDATE orchestrator.approval_requests SET payload = '{"x":1}' WHERE id = $1`, [id]))).toMatch(
      /^23001 .*what the maker submitted never changes/,
    );
    await runtime.query(`UPDATE orchestrator.approval_requests SET status = 'EXECUTED', executed_at = now(), result = '{}' WHERE id = $1`, [
      id,
    ]);
    expect(await failure(runtime.query(`UPDATE orchestrator.approval_requests SET result = '{"y":2}' WHERE id = $1`, [id]))).toMatch(
      /^23001 .*EXECUTED and final/,
    );
  });

  it('undoes a claim only whole and only on four eyes; a final request changes once more, only to record its release', async () => {
    const id = await insert();
    await approve(id, 'checker-1');
    const unclaim = (row: string) =>
      runtime.query(
        `UPDATE orchestrator.approval_requests SET status = 'PENDING', checker_id = NULL, checker_role = NULL, decided_at = NULL, claimed_at = NULL
          WHERE id = $1`,
        [row],
      );
    expect(await failure(unclaim(id))).toBe('succeeded');
    const alone = await insert({ fourEyes: false });
    await approve(alone, 'maker-1');
    expect(await failure(unclaim(alone))).toMatch(/^23001 .*EXECUTING cannot become PENDING/);

    await runtime.query(
      `UPDATE orchestrator.approval_requests SET status = 'REJECTED', checker_id = 'checker-1', checker_role = 'ADMIN', decided_at = now(),
              decision_reason = 'no' WHERE id = $1`,
      [id],
    );
    const release = () => runtime.query(`UPDATE orchestrator.approval_requests SET released_at = now() WHERE id = $1`, [id]);
    expect(await failure(release())).toBe('succeeded');
    expect(await failure(release())).toMatch(/^23001 .*REJECTED and final/);
    expect(
      await failure(
        runtime.query(`UPDATE orchestrator.approval_requests SET released_at = now(), decision_reason = 'changed' WHERE id = $1`, [id]),
      ),
    ).toMatch(/^23001 /);
    const pending = await insert();
    expect(await failure(runtime.query(`UPDATE orchestrator.approval_requests SET released_at = now() WHERE id = $1`, [pending]))).toMatch(
      /^23001 .*only a final request is released/,
    );
  });

  it('keeps every row: the service role may not delete, and even the owner is refused by the trigger', async () => {
    const id = await insert();
    expect(await failure(runtime.query(`DELETE FROM orchestrator.approval_requests WHERE id = $1`, [id]))).toMatch(/^42501 /);
    const admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    try {
      expect(await failure(admin.query(`DELETE FROM orchestrator.approval_requests WHERE id = $1`, [id]))).toMatch(/^23001 .*DELETE/);
      expect(await failure(admin.query(`TRUNCATE orchestrator.approval_requests`))).toMatch(/^23001 .*TRUNCATE/);
    } finally {
      await admin.end();
    }
  });
});
