import { randomUUID } from 'node:crypto';
import { staffSignIn, staffToken } from './backoffice-transactions-support';
import { type Json, PlatformHarness } from './platform-harness';

const person = { pin: '2580', firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

/**
 * Unfinished and undone registration workflows for staff through /api
 * (docs/operators.md "Workflows"): a registration made to fail (undone) and one cut by a crash
 * (left running) are listed with their saga log; a finished one is not.
 */
describe('back office: workflows', () => {
  const h = new PlatformHarness();
  const call = h.call.bind(h);
  const signIn = staffSignIn(call);
  let support: string;
  let auditor: string;
  let customer: string;
  let compensated: Json;
  let crashed: Json;
  let startedAt: string;

  const list = async (query = '', token = support): Promise<Json> => {
    const res = await h.call('GET', `/api/backoffice/workflows${query ? `?${query}` : ''}`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const register = (phone: string, fault?: string) =>
    h.call('POST', '/api/orchestrator/auth/register', { body: { phone, ...person }, headers: fault ? { 'x-saga-fault': fault } : {} });

  beforeAll(async () => {
    await h.start();
    startedAt = new Date().toISOString();
    const admin = await signIn('+237699000001', '4826');
    support = await staffToken(call, admin, 'SUPPORT', '+237690800001', signIn);
    auditor = await staffToken(call, admin, 'AUDITOR', '+237690800002', signIn);
    const ok = await register('+237690800003');
    expect(ok.status).toBe(201);
    customer = await signIn('+237690800003', person.pin);
    const failed = await register('+237690800004', 'fail:WALLET');
    expect([failed.status, failed.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
    await register('+237690800005', 'crash:WALLET');
    const runs = await h.sql.query(`SELECT id, phone FROM orchestrator.sagas WHERE phone IN ('+237690800004', '+237690800005')`);
    compensated = runs.rows.find((r) => r.phone === '+237690800004');
    crashed = runs.rows.find((r) => r.phone === '+237690800005');
  }, 60_000);
  afterAll(() => h.stop());

  it('lists the undone and the unfinished runs, newest first, each with its saga log; not the finished ones', async () => {
    const page = await list();
    expect(page.items.map((w: Json) => [w.phone, w.state])).toEqual([
      ['+237690800005', 'running'],
      ['+237690800004', 'compensated'],
    ]);
    const undone = page.items[1];
    expect(undone).toMatchObject({
      id: compensated.id,
      kind: 'REGISTER_CUSTOMER',
      error: { code: 'UPSTREAM_UNAVAILABLE', status: 502 },
      subject: expect.objectContaining({ firstName: 'Awa', lastName: 'Nkoulou', role: 'CUSTOMER' }),
    });
    const log = undone.steps.map((s: Json) => `${s.step}:${s.event}`);
    expect(log).toContain('WALLET:failed');
    expect(log.filter((e: string) => e.endsWith(':compensated'))).toEqual([
      'WALLET:compensated',
      'PROFILE:compensated',
      'LOCAL_USER:compensated',
      'IDP_USER:compensated',
    ]);
    expect(undone.steps.find((s: Json) => s.event === 'failed').error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    // the crashed run stopped after its WALLET step: nothing undone yet
    expect(page.items[0].steps.map((s: Json) => `${s.step}:${s.event}`)).toEqual(expect.arrayContaining(['WALLET:started', 'WALLET:done']));
    expect(page.items[0].steps.some((s: Json) => s.event.startsWith('compensat'))).toBe(false);
  });

  it('filters by state, kind and start time, and pages stably', async () => {
    expect((await list('state=compensated')).items.map((w: Json) => w.id)).toEqual([compensated.id]);
    expect((await list('state=running')).items.map((w: Json) => w.id)).toEqual([crashed.id]);
    expect((await list('kind=REGISTER_MERCHANT')).items).toEqual([]);
    expect((await list(`since=${startedAt}`)).items).toHaveLength(2);
    expect((await list(`since=${new Date(Date.now() + 60_000).toISOString()}`)).items).toEqual([]);
    const first = await list('limit=1');
    expect(first.items.map((w: Json) => w.id)).toEqual([crashed.id]);
    const second = await list(`limit=1&cursor=${first.nextCursor}`);
    expect(second.items.map((w: Json) => w.id)).toEqual([compensated.id]);
    expect(second.nextCursor).toBeNull();
  });

  it('reads one run; an unknown one is WORKFLOW_NOT_FOUND; bad filters answer their field codes', async () => {
    const one = await h.call('GET', `/api/backoffice/workflows/${compensated.id}`, { token: auditor });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: compensated.id, state: 'compensated' });
    expect(one.body.steps.length).toBeGreaterThan(4);
    const unknown = await h.call('GET', `/api/backoffice/workflows/${randomUUID()}`, { token: support });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'WORKFLOW_NOT_FOUND']);
    const malformed = await h.call('GET', '/api/backoffice/workflows/42', { token: support });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    for (const [query, field, code] of [
      ['kind=PIN', 'kind', 'INVALID_KIND'],
      ['state=succeeded', 'state', 'INVALID_STATE'],
      ['since=yesterday', 'since', 'INVALID_DATE'],
      ['cursor=abc', 'cursor', 'INVALID_CURSOR'],
      ['limit=101', 'limit', 'INVALID_LIMIT'],
    ]) {
      const res = await h.call('GET', `/api/backoffice/workflows?${query}`, { token: support });
      expect([res.status, res.body.errors?.map((e: Json) => `${e.field}:${e.code}`)]).toEqual([400, [`${field}:${code}`]]);
    }
  });

  it('is open to support and auditors; a customer is refused with the permission it lacks', async () => {
    expect((await list('', auditor)).items).toHaveLength(2);
    for (const path of ['/api/backoffice/workflows', `/api/backoffice/workflows/${compensated.id}`]) {
      const res = await h.call('GET', path, { token: customer });
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(res.body.message).toContain('operations.read');
    }
  });
});
