import { ApprovalSweep } from '../src/approvals/approval-sweep.service';
import { type Answer, type Json, PlatformHarness } from './platform-harness';

/**
 * The maker-checker engine through the gateway, with real tokens, on its first real action: a
 * configuration change (CONFIG_CHANGE), which needs four eyes by default. The effect counted is the
 * number of versions of the risk section.
 */
describe('maker-checker engine: /api/backoffice/approvals and configuration changes', () => {
  const h = new PlatformHarness();
  let maker: string;
  let makerId: string;
  let checker: string;
  let checker2: string;
  let compliance: string;
  let support: string;
  let auditor: string;

  beforeAll(async () => {
    // The sweep is run by the tests themselves (runOnce), never by a timer.
    await h.start({ orchestrator: { APPROVAL_SWEEP_INTERVAL_MS: '0' } });
    maker = await h.adminToken();
    makerId = subOf(maker);
    const users: Array<[string, string]> = [
      ['+237699100002', 'ADMIN'],
      ['+237699100003', 'ADMIN'],
      ['+237699100004', 'COMPLIANCE'],
      ['+237699100005', 'SUPPORT'],
      ['+237699100006', 'AUDITOR'],
    ];
    for (const [phone, role] of users) await h.authUser(phone, '4826', [role]);
    [checker, checker2, compliance, support, auditor] = await Promise.all(users.map(([phone]) => h.login(phone, '4826')));
  }, 120_000);
  afterAll(() => h.stop());

  const code = (res: Answer) => `${res.status} ${res.body?.code ?? res.body?.status ?? ''}`.trim();
  const riskVersion = async (): Promise<number> =>
    h.count(`SELECT max(version) AS n FROM orchestrator.config_versions WHERE section = 'risk'`);

  /** A risk change as the config route takes it, on the version in force (or `base`). */
  async function riskChange(maxPerCustomer: number, base?: number): Promise<Json> {
    const active = (await h.call('GET', '/api/config/risk', { token: maker })).body;
    const document = { ...active.document, velocity: { ...active.document.velocity, maxPerCustomer } };
    return { baseVersion: base ?? active.version, reason: `velocity ${maxPerCustomer}`, document };
  }
  const submitRisk = (body: Json, token = maker) => h.call('POST', '/api/config/risk/versions', { token, body });
  const approve = (id: string, token: string, reason?: string) =>
    h.call('POST', `/api/backoffice/approvals/${id}/approve`, { token, body: reason === undefined ? {} : { reason } });

  it('a configuration change waits for a second administrator, who sees the diff; the maker sees no way to decide', async () => {
    const before = await riskVersion();
    const submitted = await submitRisk(await riskChange(11));
    expect(code(submitted)).toBe('202 PENDING');
    expect(submitted.body).toMatchObject({
      action: 'CONFIG_CHANGE',
      fourEyes: true,
      target: { type: 'config', id: 'risk' },
      maker: { userId: makerId, role: 'ADMIN' },
      checker: null,
      reason: 'velocity 11',
    });
    expect(await riskVersion()).toBe(before);

    const asMaker = await h.call('GET', `/api/backoffice/approvals/${submitted.body.id}`, { token: maker });
    expect(asMaker.status).toBe(200);
    expect(asMaker.body.viewer).toEqual({ canDecide: false, reasonIfNot: 'APPROVAL_SELF_DECISION' });
    expect(asMaker.body.preview).toMatchObject({
      section: 'risk',
      activeVersion: before,
      stale: false,
      changes: [{ path: 'velocity.maxPerCustomer', after: 11 }],
    });
    expect(code(await approve(submitted.body.id, maker))).toBe('403 APPROVAL_SELF_DECISION');
    expect(
      code(await h.call('POST', `/api/backoffice/approvals/${submitted.body.id}/reject`, { token: maker, body: { reason: 'mine' } })),
    ).toBe('403 APPROVAL_SELF_DECISION');
    expect(await riskVersion()).toBe(before);

    const asChecker = await h.call('GET', `/api/backoffice/approvals/${submitted.body.id}`, { token: checker });
    expect(asChecker.body.viewer).toEqual({ canDecide: true, reasonIfNot: null });
    const approved = await approve(submitted.body.id, checker, 'checked with finance');
    expect(code(approved)).toBe('200 EXECUTED');
    expect(approved.body).toMatchObject({
      checker: { role: 'ADMIN' },
      decisionReason: 'checked with finance',
      result: { section: 'risk', version: before + 1 },
    });
    expect(await riskVersion()).toBe(before + 1);

    // who changed what and when: the version is the maker's, with the reason given
    const diff = await h.call('GET', `/api/config/risk/versions/diff?from=${before}&to=${before + 1}`, { token: checker });
    expect(diff.status).toBe(200);
    expect(diff.body.to).toMatchObject({ version: before + 1, createdBy: makerId, reason: 'velocity 11' });
    expect(diff.body.changes).toEqual([{ path: 'velocity.maxPerCustomer', before: expect.any(Number), after: 11 }]);
    expect(code(await approve(submitted.body.id, checker2))).toBe('409 APPROVAL_ALREADY_DECIDED');
  });

  it('refuses a second identical pending request, naming the first', async () => {
    const body = await riskChange(12);
    const first = await submitRisk(body);
    expect(first.status).toBe(202);
    const second = await submitRisk({ ...body, reason: 'same change, other words' });
    expect(code(second)).toBe('409 APPROVAL_DUPLICATE_PENDING');
    expect(second.body.message).toContain(first.body.id);
    // through the generic route too
    const generic = await h.call('POST', '/api/backoffice/approvals', {
      token: checker,
      body: { action: 'CONFIG_CHANGE', payload: { section: 'risk', ...body }, reason: 'again' },
    });
    expect(code(generic)).toBe('409 APPROVAL_DUPLICATE_PENDING');
    expect(
      code(await h.call('POST', `/api/backoffice/approvals/${first.body.id}/reject`, { token: checker, body: { reason: 'not now' } })),
    ).toBe('200 REJECTED');
    // decided, it no longer blocks the same change
    expect((await submitRisk(body)).status).toBe(202);
  });

  it('two checkers approving at once execute the change once', async () => {
    const before = await riskVersion();
    const submitted = await submitRisk(await riskChange(13));
    const answers = await Promise.all([checker, checker2, checker, checker2].map((token) => approve(submitted.body.id, token)));
    expect(answers.map(code).sort()).toEqual([
      '200 EXECUTED',
      '409 APPROVAL_ALREADY_DECIDED',
      '409 APPROVAL_ALREADY_DECIDED',
      '409 APPROVAL_ALREADY_DECIDED',
    ]);
    expect(await riskVersion()).toBe(before + 1);
  });

  it('an approval refused where it runs is recorded FAILED with the code, and the change can be submitted again', async () => {
    const base = await riskVersion();
    const a = await submitRisk(await riskChange(14, base));
    const b = await submitRisk(await riskChange(15, base));
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(code(await approve(a.body.id, checker))).toBe('200 EXECUTED');
    const failed = await approve(b.body.id, checker);
    expect(code(failed)).toBe('200 FAILED');
    expect(failed.body.failure).toEqual({ code: 'CONFIG_VERSION_CONFLICT', message: expect.stringContaining(`version ${base}`) });
    expect(await riskVersion()).toBe(base + 1);
    const stored = await h.sql.query(`SELECT status, failure_code FROM orchestrator.approval_requests WHERE id = $1`, [b.body.id]);
    expect(stored.rows[0]).toEqual({ status: 'FAILED', failure_code: 'CONFIG_VERSION_CONFLICT' });
    // the failed request does not block its payload: the same change is checked again (stale base)…
    expect(code(await submitRisk(await riskChange(15, base)))).toBe('409 CONFIG_VERSION_CONFLICT');
    // …and, made on the version in force, is accepted
    expect((await submitRisk(await riskChange(15))).status).toBe(202);
  });

  it('bulk decisions answer each id with its own outcome', async () => {
    const x = (await submitRisk(await riskChange(21))).body.id;
    const y = (await submitRisk(await riskChange(22))).body.id;
    const unknown = '7c3e9f1a-5b2d-4c8e-9a1f-0d2b4c6e8a10';
    const byMaker = await h.call('POST', '/api/backoffice/approvals/decisions', {
      token: maker,
      body: { ids: [x, y], decision: 'APPROVE', reason: 'month end' },
    });
    expect(byMaker.status).toBe(200);
    expect(byMaker.body.results.map((r: Json) => [r.outcome, r.error?.code])).toEqual([
      ['REFUSED', 'APPROVAL_SELF_DECISION'],
      ['REFUSED', 'APPROVAL_SELF_DECISION'],
    ]);
    const res = await h.call('POST', '/api/backoffice/approvals/decisions', {
      token: checker,
      body: { ids: [x, unknown, y], decision: 'REJECT', reason: 'superseded' },
    });
    expect(res.body.results.map((r: Json) => [r.id, r.outcome, r.request?.status ?? r.error?.code])).toEqual([
      [x, 'REJECTED', 'REJECTED'],
      [unknown, 'REFUSED', 'APPROVAL_NOT_FOUND'],
      [y, 'REJECTED', 'REJECTED'],
    ]);
    const invalid = await h.call('POST', '/api/backoffice/approvals/decisions', {
      token: checker,
      body: { ids: [], decision: 'MAYBE', reason: 'x' },
    });
    expect(code(invalid)).toBe('400 VALIDATION_ERROR');
    expect(invalid.body.errors.map((e: Json) => e.field).sort()).toEqual(['decision', 'ids', 'reason']);
  });

  it('a wrong role gets 403 naming the permission it lacks', async () => {
    const pending = (await submitRisk(await riskChange(31))).body.id;
    const bySupport = await h.call('GET', '/api/backoffice/approvals', { token: support });
    expect(code(bySupport)).toBe('403 FORBIDDEN');
    expect(bySupport.body.message).toContain('approvals.read');
    // compliance reads the inbox and decides what it may, but configuration is the administrators'
    const byCompliance = await approve(pending, compliance);
    expect(code(byCompliance)).toBe('403 FORBIDDEN');
    expect(byCompliance.body.message).toContain('config.manage');
    expect((await h.call('GET', `/api/backoffice/approvals/${pending}`, { token: compliance })).body.viewer).toEqual({
      canDecide: false,
      reasonIfNot: 'FORBIDDEN',
    });
    const submitted = await h.call('POST', '/api/backoffice/approvals', {
      token: compliance,
      body: { action: 'CONFIG_CHANGE', payload: { section: 'risk', ...(await riskChange(32)) }, reason: 'not mine to make' },
    });
    expect(code(submitted)).toBe('403 FORBIDDEN');
    expect(submitted.body.message).toContain('config.manage');
    // the auditor reads, never decides
    expect((await h.call('GET', `/api/backoffice/approvals/${pending}`, { token: auditor })).status).toBe(200);
    const byAuditor = await approve(pending, auditor);
    expect(code(byAuditor)).toBe('403 FORBIDDEN');
    expect(byAuditor.body.message).toContain('transactions.approve');
  });

  it('lists newest first with filters and a cursor', async () => {
    const all = await h.call('GET', `/api/backoffice/approvals?action=CONFIG_CHANGE&makerId=${makerId}&targetType=config&targetId=risk`, {
      token: auditor,
    });
    expect(all.status).toBe(200);
    expect(all.body.items.length).toBeGreaterThan(5);
    const times = all.body.items.map((r: Json) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const rejected = await h.call('GET', '/api/backoffice/approvals?status=REJECTED', { token: auditor });
    expect(rejected.body.items.length).toBeGreaterThanOrEqual(3);
    expect(rejected.body.items.every((r: Json) => r.status === 'REJECTED')).toBe(true);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer = await h.call('GET', `/api/backoffice/approvals?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: auditor });
      seen.push(...page.body.items.map((r: Json) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(
      (await h.call('GET', '/api/backoffice/approvals?limit=100', { token: auditor })).body.items.map((r: Json) => r.id),
    );
    expect(code(await h.call('GET', '/api/backoffice/approvals?cursor=nope', { token: auditor }))).toBe('400 VALIDATION_ERROR');
    expect(code(await h.call('GET', '/api/backoffice/approvals/not-a-uuid', { token: auditor }))).toBe('400 VALIDATION_ERROR');
    expect(code(await h.call('GET', '/api/backoffice/approvals/7c3e9f1a-5b2d-4c8e-9a1f-0d2b4c6e8a10', { token: auditor }))).toBe(
      '404 APPROVAL_NOT_FOUND',
    );
  });

  describe('with a one-second validity', () => {
    beforeAll(() => h.restartOrchestrator({ APPROVAL_TTL_SECONDS: '1' }));
    afterAll(() => h.restartOrchestrator({}));

    it('a request nobody decided in time expires: read as EXPIRED, refused to the checker, closed by the sweep', async () => {
      const before = await riskVersion();
      const submitted = await submitRisk(await riskChange(41));
      expect(submitted.status).toBe(202);
      const sweep = h.orchestrator.app.get(ApprovalSweep);
      await waitUntil(
        async () =>
          (await h.count(`SELECT count(*) AS n FROM orchestrator.approval_requests WHERE id = $1 AND expires_at <= now()`, [
            submitted.body.id,
          ])) === 1,
      );
      const listed = await h.call('GET', '/api/backoffice/approvals?status=EXPIRED', { token: checker });
      expect(listed.body.items.map((r: Json) => r.id)).toContain(submitted.body.id);
      expect(code(await approve(submitted.body.id, checker))).toBe('409 APPROVAL_EXPIRED');
      expect(await sweep.runOnce()).toMatchObject({ ran: true });
      const stored = await h.sql.query(
        `SELECT status, decided_at IS NOT NULL AS decided FROM orchestrator.approval_requests WHERE id = $1`,
        [submitted.body.id],
      );
      expect(stored.rows[0]).toEqual({ status: 'EXPIRED', decided: true });
      expect(code(await approve(submitted.body.id, checker))).toBe('409 APPROVAL_EXPIRED');
      expect(await riskVersion()).toBe(before);
    });
  });

  describe('with CONFIG_CHANGE configured one-person', () => {
    beforeAll(() => h.restartOrchestrator({ APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE' }));
    afterAll(() => h.restartOrchestrator({}));

    it('the maker changes the configuration at once, answered as before, and the engine records it', async () => {
      const before = await riskVersion();
      const res = await submitRisk(await riskChange(51));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ section: 'risk', version: before + 1, createdBy: makerId, reason: 'velocity 51' });
      expect(await riskVersion()).toBe(before + 1);
      const recorded = await h.call('GET', `/api/backoffice/approvals?action=CONFIG_CHANGE&status=EXECUTED&limit=1`, { token: checker });
      expect(recorded.body.items[0]).toMatchObject({
        fourEyes: false,
        maker: { userId: makerId },
        checker: { userId: makerId },
        result: { version: before + 1 },
      });
      // a refusal is answered exactly as a direct change was
      expect(code(await submitRisk(await riskChange(52, before)))).toBe('409 CONFIG_VERSION_CONFLICT');
    });
  });
});

function subOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
