import { AppException } from '@mm/errors';
import type { AuthUser } from '../src/access/permissions';
import type { ApprovalHandler } from '../src/approvals/approval-handler';
import { ApprovalRegistry } from '../src/approvals/approval-registry';
import { ApprovalSweep } from '../src/approvals/approval-sweep.service';
import { type Answer, PlatformHarness } from './platform-harness';

/** The action this file's stand-in handler takes over (the real one, if any, is put back after). */
const ACTION = 'STAFF_TOTP_RESET';

interface Payload {
  n: number;
  amount?: number;
  refuseAtPrepare?: boolean;
  crashOnce?: boolean;
  /** describe throws after prepare reserved (the request cannot be stored) */
  failDescribe?: boolean;
  /** the place the action runs refuses the first checker's role (403) */
  forbidOnce?: boolean;
  /** execute is refused (409 CONFIG_VERSION_CONFLICT) */
  refuseExecute?: boolean;
  /** the first release throws (the service it calls is down) */
  releaseFailsOnce?: boolean;
  /** the user the request concerns (refuseChecker refuses them) */
  concerns?: string;
}

/** What the stand-in handler was asked to do, in order: what the engine calls is the outcome under test. */
const calls: Array<{ step: string; n: number; by: string | null; requestId?: string; reason?: string }> = [];
const crashed = new Set<number>();
const forbidden = new Set<number>();
const releaseFailed = new Set<number>();

/** A handler that only records its calls (test-only: registered into the running app, never in production code). */
const standIn: ApprovalHandler<Payload> = {
  action: ACTION,
  makerPermission: 'approvals.read',
  checkerPermission: 'approvals.read',
  fourEyesMandatory: false,
  parse: (payload) => payload as Payload,
  describe: (p) => {
    if (p.failDescribe) throw new Error('the request cannot be stored');
    return {
      target: { type: 'user', id: `user-${p.n}` },
      summary: `stand-in ${p.n}`,
      amount: p.amount === undefined ? undefined : { value: p.amount, currency: 'XAF' },
    };
  },
  refuseChecker: (p, _prepared, checker) =>
    p.concerns === checker.userId ? new AppException('APPROVAL_CHECKER_CONCERNED', 'the request concerns you') : null,
  prepare: async (p, maker, requestId) => {
    if (p.refuseAtPrepare) throw new AppException('VALIDATION_ERROR', 'payload.n: refused by prepare');
    calls.push({ step: 'prepare', n: p.n, by: maker.userId, requestId });
    return { reserved: p.n };
  },
  preview: async (p, prepared) => ({ wouldDo: p.n, prepared }),
  execute: async (p, prepared, checker: AuthUser, requestId) => {
    calls.push({ step: 'execute', n: p.n, by: checker.userId, requestId });
    if (p.forbidOnce && !forbidden.has(p.n)) {
      forbidden.add(p.n);
      throw new AppException('OPERATOR_ROLE_REQUIRED', 'not this checker');
    }
    if (p.refuseExecute) throw new AppException('CONFIG_VERSION_CONFLICT', 'refused where it runs');
    if (p.crashOnce && !crashed.has(p.n)) {
      crashed.add(p.n);
      throw new Error('connection lost mid-execution');
    }
    return { done: p.n, reserved: (prepared as { reserved: number }).reserved };
  },
  release: async (p, _prepared, by, reason) => {
    calls.push({ step: 'release', n: p.n, by: by?.userId ?? null, reason });
    if (p.releaseFailsOnce && !releaseFailed.has(p.n)) {
      releaseFailed.add(p.n);
      throw new Error('the service that keeps the reservation is down');
    }
  },
};

describe('maker-checker engine: what it asks of a handler', () => {
  const h = new PlatformHarness();
  let maker: string;
  let checker: string;
  let compliance: string;
  let makerId: string;
  let checkerId: string;
  let original: ApprovalHandler | undefined;

  function install(): void {
    const handlers = (h.orchestrator.app.get(ApprovalRegistry) as unknown as { handlers: Map<string, ApprovalHandler> }).handlers;
    original ??= handlers.get(ACTION);
    handlers.delete(ACTION);
    h.orchestrator.app.get(ApprovalRegistry).register(standIn);
  }

  beforeAll(async () => {
    await h.start({ orchestrator: { APPROVAL_SWEEP_INTERVAL_MS: '0', APPROVAL_EXECUTING_GRACE_SECONDS: '1' } });
    install();
    maker = await h.adminToken();
    makerId = subOf(maker);
    checkerId = await h.authUser('+237699200002', '4826', ['ADMIN']);
    await h.authUser('+237699200003', '4826', ['COMPLIANCE']);
    checker = await h.login('+237699200002', '4826');
    compliance = await h.login('+237699200003', '4826');
  }, 120_000);
  afterAll(async () => {
    const handlers = (h.orchestrator.app.get(ApprovalRegistry) as unknown as { handlers: Map<string, ApprovalHandler> }).handlers;
    handlers.delete(ACTION);
    if (original) handlers.set(ACTION, original);
    await h.stop();
  });

  const code = (res: Answer) => `${res.status} ${res.body?.code ?? res.body?.status ?? ''}`.trim();
  const submit = (payload: Payload, token = maker) =>
    h.call('POST', '/api/backoffice/approvals', { token, body: { action: ACTION, payload, reason: `stand-in ${payload.n}` } });
  const stepsOf = (n: number) => calls.filter((c) => c.n === n).map((c) => c.step);

  it('a prepare that refuses leaves nothing stored', async () => {
    const res = await submit({ n: 1, refuseAtPrepare: true });
    expect(code(res)).toBe('400 VALIDATION_ERROR');
    expect(await h.count(`SELECT count(*) AS n FROM orchestrator.approval_requests WHERE summary = 'stand-in 1'`)).toBe(0);
  });

  it('prepares with the maker, executes with the checker, on the request id; rejecting releases with the checker and the reason', async () => {
    const a = await submit({ n: 2 });
    expect(code(a)).toBe('202 PENDING');
    expect(calls.filter((c) => c.n === 2)).toEqual([{ step: 'prepare', n: 2, by: makerId, requestId: a.body.id }]);
    const detail = await h.call('GET', `/api/backoffice/approvals/${a.body.id}`, { token: checker });
    expect(detail.body.preview).toEqual({ wouldDo: 2, prepared: { reserved: 2 } });
    const approved = await h.call('POST', `/api/backoffice/approvals/${a.body.id}/approve`, { token: checker, body: {} });
    expect(approved.body).toMatchObject({ status: 'EXECUTED', result: { done: 2, reserved: 2 } });
    expect(calls.filter((c) => c.n === 2).at(-1)).toEqual({ step: 'execute', n: 2, by: checkerId, requestId: a.body.id });

    const b = await submit({ n: 3 });
    expect(
      code(await h.call('POST', `/api/backoffice/approvals/${b.body.id}/reject`, { token: checker, body: { reason: 'not needed' } })),
    ).toBe('200 REJECTED');
    expect(stepsOf(3)).toEqual(['prepare', 'release']);
    expect(calls.filter((c) => c.n === 3).at(-1)).toMatchObject({ by: checkerId, reason: 'not needed' });
  });

  it('above APPROVAL_COMPLIANCE_LIMIT only a compliance officer approves', async () => {
    const big = await submit({ n: 4, amount: 1_000_001 });
    expect(big.body.amount).toEqual({ value: 1_000_001, currency: 'XAF' });
    expect((await h.call('GET', `/api/backoffice/approvals/${big.body.id}`, { token: checker })).body.viewer).toEqual({
      canDecide: false,
      reasonIfNot: 'APPROVAL_COMPLIANCE_REQUIRED',
    });
    expect(code(await h.call('POST', `/api/backoffice/approvals/${big.body.id}/approve`, { token: checker, body: {} }))).toBe(
      '403 APPROVAL_COMPLIANCE_REQUIRED',
    );
    expect(stepsOf(4)).toEqual(['prepare']);
    expect(code(await h.call('POST', `/api/backoffice/approvals/${big.body.id}/approve`, { token: compliance, body: {} }))).toBe(
      '200 EXECUTED',
    );
    // at the limit, any checker
    const atLimit = await submit({ n: 5, amount: 1_000_000 });
    expect(code(await h.call('POST', `/api/backoffice/approvals/${atLimit.body.id}/approve`, { token: checker, body: {} }))).toBe(
      '200 EXECUTED',
    );
  });

  it('an execution cut by a crash stays EXECUTING and the sweep runs it again on the same request id', async () => {
    const req = await submit({ n: 6, crashOnce: true });
    const cut = await h.call('POST', `/api/backoffice/approvals/${req.body.id}/approve`, { token: checker, body: {} });
    expect(cut.status).toBe(500);
    const status = async () =>
      (await h.sql.query(`SELECT status FROM orchestrator.approval_requests WHERE id = $1`, [req.body.id])).rows[0].status;
    expect(await status()).toBe('EXECUTING');
    const sweep = h.orchestrator.app.get(ApprovalSweep);
    // nothing to resume before the grace period is over
    await waitUntil(
      async () =>
        (await h.count(
          `SELECT count(*) AS n FROM orchestrator.approval_requests WHERE id = $1 AND claimed_at <= now() - interval '1 second'`,
          [req.body.id],
        )) === 1,
    );
    expect(await sweep.runOnce()).toMatchObject({ ran: true, resumed: 1 });
    expect(await status()).toBe('EXECUTED');
    expect(calls.filter((c) => c.n === 6 && c.step === 'execute').map((c) => [c.by, c.requestId])).toEqual([
      [checkerId, req.body.id],
      [checkerId, req.body.id],
    ]);
  });

  it('a request that cannot be stored after prepare reserved has its reservation released at once (no person)', async () => {
    const res = await submit({ n: 20, failDescribe: true });
    expect(res.status).toBe(500);
    expect(calls.filter((c) => c.n === 20)).toEqual([
      expect.objectContaining({ step: 'prepare' }),
      { step: 'release', n: 20, by: null, reason: 'submission failed' },
    ]);
    expect(await h.count(`SELECT count(*) AS n FROM orchestrator.approval_preparations`)).toBe(0);
  });

  it('a release that fails is retried by the sweep until done, and recorded', async () => {
    const req = await submit({ n: 21, releaseFailsOnce: true });
    expect(
      code(await h.call('POST', `/api/backoffice/approvals/${req.body.id}/reject`, { token: checker, body: { reason: 'not needed' } })),
    ).toBe('200 REJECTED');
    const released = async () =>
      (await h.sql.query(`SELECT released_at FROM orchestrator.approval_requests WHERE id = $1`, [req.body.id])).rows[0].released_at;
    expect(await released()).toBeNull();
    expect(await h.orchestrator.app.get(ApprovalSweep).runOnce()).toMatchObject({ ran: true, released: 1 });
    expect(await released()).not.toBeNull();
    expect(stepsOf(21)).toEqual(['prepare', 'release', 'release']);
    expect(await h.orchestrator.app.get(ApprovalSweep).runOnce()).toMatchObject({ released: 0 });
  });

  it('a refusal where the action runs is FAILED and released with no person', async () => {
    const req = await submit({ n: 22, refuseExecute: true });
    const failed = await h.call('POST', `/api/backoffice/approvals/${req.body.id}/approve`, { token: checker, body: {} });
    expect([failed.status, failed.body.status, failed.body.failure?.code]).toEqual([200, 'FAILED', 'CONFIG_VERSION_CONFLICT']);
    expect(calls.filter((c) => c.n === 22).at(-1)).toMatchObject({ step: 'release', by: null });
  });

  it('a checker refused by role where the action runs gets the 403 and the request stays pending for another', async () => {
    const req = await submit({ n: 23, forbidOnce: true });
    const refused = await h.call('POST', `/api/backoffice/approvals/${req.body.id}/approve`, { token: checker, body: {} });
    expect(code(refused)).toBe('403 OPERATOR_ROLE_REQUIRED');
    const stored = await h.sql.query(`SELECT status, checker_id FROM orchestrator.approval_requests WHERE id = $1`, [req.body.id]);
    expect(stored.rows[0]).toEqual({ status: 'PENDING', checker_id: null });
    expect(stepsOf(23)).toEqual(['prepare', 'execute']);
    expect(code(await h.call('POST', `/api/backoffice/approvals/${req.body.id}/approve`, { token: compliance, body: {} }))).toBe(
      '200 EXECUTED',
    );
  });

  it('a checker the request concerns is refused before anything is claimed, with a stable code', async () => {
    const req = await submit({ n: 24, concerns: checkerId });
    const detail = await h.call('GET', `/api/backoffice/approvals/${req.body.id}`, { token: checker });
    expect(detail.body.viewer).toEqual({ canDecide: false, reasonIfNot: 'APPROVAL_CHECKER_CONCERNED' });
    expect(code(await h.call('POST', `/api/backoffice/approvals/${req.body.id}/approve`, { token: checker, body: {} }))).toBe(
      '403 APPROVAL_CHECKER_CONCERNED',
    );
    expect(stepsOf(24)).toEqual(['prepare']);
    expect(code(await h.call('POST', `/api/backoffice/approvals/${req.body.id}/approve`, { token: compliance, body: {} }))).toBe(
      '200 EXECUTED',
    );
  });

  describe('configured one-person', () => {
    beforeAll(async () => {
      await h.restartOrchestrator({ APPROVAL_SWEEP_INTERVAL_MS: '0', APPROVALS_ONE_PERSON_ACTIONS: ACTION });
      install();
    });

    it('runs at once below the compliance limit, and falls back to four eyes above it', async () => {
      expect(code(await submit({ n: 30, amount: 1_000 }))).toBe('200 EXECUTED');
      const big = await submit({ n: 31, amount: 1_000_001 });
      expect([big.status, big.body.status, big.body.fourEyes]).toEqual([202, 'PENDING', true]);
      expect(stepsOf(31)).toEqual(['prepare']);
      expect(code(await h.call('POST', `/api/backoffice/approvals/${big.body.id}/approve`, { token: maker, body: {} }))).toBe(
        '403 APPROVAL_SELF_DECISION',
      );
    });
  });

  describe('with a one-second validity', () => {
    beforeAll(async () => {
      await h.restartOrchestrator({ APPROVAL_TTL_SECONDS: '1', APPROVAL_SWEEP_INTERVAL_MS: '0' });
      install();
    });

    it('reading a request past its expiry shows EXPIRED and writes nothing: the sweep closes it', async () => {
      const req = await submit({ n: 8 });
      await waitUntil(
        async () =>
          (await h.count(`SELECT count(*) AS n FROM orchestrator.approval_requests WHERE id = $1 AND expires_at <= now()`, [
            req.body.id,
          ])) === 1,
      );
      const read = await h.call('GET', `/api/backoffice/approvals/${req.body.id}`, { token: checker });
      expect([read.status, read.body.request.status]).toEqual([200, 'EXPIRED']);
      const stored = await h.sql.query(`SELECT status FROM orchestrator.approval_requests WHERE id = $1`, [req.body.id]);
      expect(stored.rows[0].status).toBe('PENDING');
      expect(stepsOf(8)).toEqual(['prepare']);
      expect(await h.orchestrator.app.get(ApprovalSweep).runOnce()).toMatchObject({ expired: 1 });
      expect(stepsOf(8)).toEqual(['prepare', 'release']);
    });

    it('the sweep expires a pending request once and releases it with no checker', async () => {
      const req = await submit({ n: 7 });
      await waitUntil(
        async () =>
          (await h.count(`SELECT count(*) AS n FROM orchestrator.approval_requests WHERE id = $1 AND expires_at <= now()`, [
            req.body.id,
          ])) === 1,
      );
      const sweep = h.orchestrator.app.get(ApprovalSweep);
      expect(await sweep.runOnce()).toMatchObject({ ran: true, expired: 1 });
      expect(await sweep.runOnce()).toMatchObject({ ran: true, expired: 0 });
      expect(calls.filter((c) => c.n === 7)).toEqual([
        expect.objectContaining({ step: 'prepare' }),
        { step: 'release', n: 7, by: null, reason: 'expired' },
      ]);
      expect(
        code(await h.call('POST', `/api/backoffice/approvals/${req.body.id}/reject`, { token: checker, body: { reason: 'late' } })),
      ).toBe('409 APPROVAL_EXPIRED');
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
