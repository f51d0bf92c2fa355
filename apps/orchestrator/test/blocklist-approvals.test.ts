import { BlocklistService } from '../src/risk/blocklist.service';
import { ADMIN_PHONE, ADMIN_PIN, type Answer, OrchestratorHarness } from './pricing-harness';

const COMPLIANCE_PHONE = '+237690001011';
const SUPPORT_PHONE = '+237690001012';
const PIN = '4826';

/**
 * Lifting a phone from the risk blocklist is the maker-checker action BLOCKLIST_REMOVE (four eyes
 * by default), with real staff tokens from the real auth service: the administrator asks, a
 * compliance officer decides. The effect checked is what the risk rules read: the active entries
 * for the phone (`BlocklistService.screen`).
 */
describe('blocklist removal under four eyes (BLOCKLIST_REMOVE)', () => {
  const h = new OrchestratorHarness();
  let admin: { token: string; userId: string };
  let compliance: { token: string; userId: string };
  let support: { token: string; userId: string };

  beforeAll(async () => {
    await h.start({ APPROVAL_SWEEP_INTERVAL_MS: '0' }, { withAuth: true });
    admin = await h.login(ADMIN_PHONE, ADMIN_PIN);
    await h.createUser(COMPLIANCE_PHONE, PIN, ['COMPLIANCE']);
    await h.createUser(SUPPORT_PHONE, PIN, ['SUPPORT']);
    compliance = await h.login(COMPLIANCE_PHONE, PIN);
    support = await h.login(SUPPORT_PHONE, PIN);
  }, 60_000);
  afterAll(() => h.stop());

  const code = (res: Answer) => {
    const body = res.json<{ code?: string; status?: string }>();
    return `${res.statusCode} ${body.code ?? body.status ?? ''}`.trim();
  };
  const listed = async (phone: string) => (await h.get(BlocklistService).screen([phone])).entries.map((e) => e.id);

  async function bar(phone: string): Promise<string> {
    const res = await h.request('POST', '/api/risk/blocklist', {
      token: admin.token,
      body: { phone, list: 'FRAUD', reason: 'case 2026-201' },
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string }>().id;
  }
  const lift = (id: string, token: string, reason = 'case closed') =>
    h.request('DELETE', `/api/risk/blocklist/${id}?reason=${encodeURIComponent(reason)}`, { token });
  const decide = (id: string, decision: 'approve' | 'reject', token: string, reason = 'checked the case file') =>
    h.request('POST', `/api/backoffice/approvals/${id}/${decision}`, { token, body: { reason } });

  it('asking is not lifting: the maker cannot approve, a second request is refused, another officer’s approval lifts the phone', async () => {
    const phone = '+237690009101';
    const entryId = await bar(phone);

    const asked = await lift(entryId, admin.token);
    expect(code(asked)).toBe('202 PENDING');
    const request = asked.json<{ id: string }>();
    expect(request).toMatchObject({
      action: 'BLOCKLIST_REMOVE',
      fourEyes: true,
      target: { type: 'config', id: `blocklist/${entryId}` },
      summary: `Lift ${phone} from the FRAUD blocklist`,
      payload: { entryId, reason: 'case closed' },
      maker: { userId: admin.userId, role: 'ADMIN' },
    });
    expect(await listed(phone)).toEqual([entryId]);

    expect(code(await lift(entryId, admin.token, 'another reason'))).toBe('409 APPROVAL_DUPLICATE_PENDING');
    expect(code(await decide(request.id, 'approve', admin.token))).toBe('403 APPROVAL_SELF_DECISION');
    expect(code(await decide(request.id, 'approve', support.token))).toBe('403 FORBIDDEN');
    expect(await listed(phone)).toEqual([entryId]);

    const detail = await h.request('GET', `/api/backoffice/approvals/${request.id}`, { token: compliance.token });
    expect(detail.json()).toMatchObject({
      preview: { entry: { id: entryId, phone, removedAt: null } },
      viewer: { canDecide: true, reasonIfNot: null },
    });

    const approved = await decide(request.id, 'approve', compliance.token);
    expect(code(approved)).toBe('200 EXECUTED');
    expect(approved.json()).toMatchObject({
      checker: { userId: compliance.userId, role: 'COMPLIANCE' },
      result: { id: entryId, removedBy: compliance.userId, removalReason: 'case closed' },
    });
    expect(await listed(phone)).toEqual([]);
    const history = await h.request('GET', `/api/risk/blocklist?phone=${encodeURIComponent(phone)}&includeRemoved=true`, {
      token: compliance.token,
    });
    expect(history.json<{ entries: unknown[] }>().entries).toEqual([
      expect.objectContaining({ id: entryId, addedBy: admin.userId, removedBy: compliance.userId, removalReason: 'case closed' }),
    ]);
    expect(code(await lift(entryId, admin.token))).toBe('404 BLOCKLIST_ENTRY_NOT_FOUND');
  });

  it('a rejected request keeps the phone barred, and the removal can be asked again', async () => {
    const phone = '+237690009102';
    const entryId = await bar(phone);
    const request = (await lift(entryId, admin.token)).json<{ id: string }>();

    const rejected = await decide(request.id, 'reject', compliance.token, 'the case is still open');
    expect(code(rejected)).toBe('200 REJECTED');
    expect(await listed(phone)).toEqual([entryId]);
    expect(code(await decide(request.id, 'approve', compliance.token))).toBe('409 APPROVAL_ALREADY_DECIDED');
    expect(await listed(phone)).toEqual([entryId]);

    expect(code(await lift(entryId, admin.token))).toBe('202 PENDING');
  });

  it('refuses what cannot be lifted before asking anyone; an entry lifted meanwhile makes the approval FAILED', async () => {
    expect(code(await lift('7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d', admin.token))).toBe('404 BLOCKLIST_ENTRY_NOT_FOUND');
    expect(code(await lift('not-a-uuid', admin.token))).toBe('400 VALIDATION_ERROR');
    expect(code(await h.request('DELETE', `/api/risk/blocklist/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d`, { token: admin.token }))).toBe(
      '400 VALIDATION_ERROR',
    );
    expect(code(await lift('7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d', support.token))).toBe('403 FORBIDDEN');

    const phone = '+237690009103';
    const entryId = await bar(phone);
    const request = (await lift(entryId, admin.token)).json<{ id: string }>();
    await h.get(BlocklistService).remove(entryId, { removedBy: compliance.userId, reason: 'lifted by another way' });
    const approved = await decide(request.id, 'approve', compliance.token);
    expect(code(approved)).toBe('200 FAILED');
    expect(approved.json()).toMatchObject({ failure: { code: 'BLOCKLIST_ENTRY_NOT_FOUND' } });
  });
});
