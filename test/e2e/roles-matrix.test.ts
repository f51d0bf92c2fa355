import { randomUUID } from 'node:crypto';
import { APP_ROLES, type AppRole } from '@mm/contracts';
import { PERMISSIONS, type Permission } from '../../apps/orchestrator/src/access/permissions';
import { ROLE_PERMISSIONS, rolesWith } from '../../apps/orchestrator/src/access/role-matrix';
import { ADMIN_PHONE, ADMIN_PIN, type Answer, PlatformHarness } from '../../apps/orchestrator/test/platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };
const GUARD_REFUSAL = /^This requires the /;

type Operation = {
  'x-required-permissions'?: Permission[];
  'x-allowed-roles'?: string[];
  'x-public-route'?: boolean;
  security?: unknown[];
};

describe('the role × permission matrix, row by row, through the gateway', () => {
  const h = new PlatformHarness();
  const tokens = {} as Record<AppRole, string>;
  const ids = {} as Record<string, string>;

  beforeAll(async () => {
    await h.start();
    const reg = async (path: string, phone: string, extra: object = {}) => {
      const res = await h.call('POST', path, { body: { phone, pin: PIN, ...person, ...extra } });
      if (res.status !== 201) throw new Error(`${path} ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const customer = await reg('/api/orchestrator/auth/register', '+237690700001');
    await reg('/api/orchestrator/auth/register/merchant', '+237690700002', { businessName: 'Chez Awa', category: 'RETAIL' });
    await reg('/api/orchestrator/auth/register/agent', '+237690700003');
    const master = await reg('/api/orchestrator/auth/register/agent', '+237690700004');
    tokens.ADMIN = await h.login(ADMIN_PHONE, ADMIN_PIN);
    await h.call('PUT', `/api/orchestrator/admin/users/${master.userId}/role`, { token: tokens.ADMIN, body: { role: 'MASTER_AGENT' } });
    for (const [role, phone] of [
      ['SUPPORT', '+237690700005'],
      ['COMPLIANCE', '+237690700006'],
      ['AUDITOR', '+237690700007'],
    ] as const) {
      const res = await h.call('POST', '/api/orchestrator/admin/staff', {
        token: tokens.ADMIN,
        body: { phone, pin: PIN, ...person, role },
      });
      if (res.status !== 201) throw new Error(`staff ${res.status} ${JSON.stringify(res.body)}`);
    }
    const phones: Record<Exclude<AppRole, 'ADMIN'>, string> = {
      CUSTOMER: '+237690700001',
      MERCHANT: '+237690700002',
      AGENT: '+237690700003',
      MASTER_AGENT: '+237690700004',
      SUPPORT: '+237690700005',
      COMPLIANCE: '+237690700006',
      AUDITOR: '+237690700007',
    };
    for (const [role, phone] of Object.entries(phones)) tokens[role as AppRole] = await h.login(phone, PIN);
    ids.customerId = customer.customerId;
    ids.masterUserId = master.userId;
    ids.accountId = customer.accounts.XAF;
  });
  afterAll(() => h.stop());

  it('every role signs in with its own role', async () => {
    for (const role of APP_ROLES) expect((await h.call('GET', '/api/auth/me', { token: tokens[role] })).body.roles).toEqual([role]);
  });

  /** One call per permission to a route of this work that needs exactly it, answering 2xx when allowed. */
  const PROBES: Partial<Record<Permission, () => [string, string, unknown?]>> = {
    'profile.read': () => ['GET', '/api/orchestrator/me'],
    'profile.update': () => ['PATCH', '/api/orchestrator/me/profile', { lastName: 'Nkoulou' }],
    'merchant.read': () => ['GET', '/api/orchestrator/merchants/me'],
    'agents.read': () => ['GET', '/api/orchestrator/agents/me'],
    'agents.network': () => ['GET', '/api/orchestrator/agents/me/agents'],
    'customers.read': () => ['GET', '/api/orchestrator/admin/customers?limit=5'],
    // idempotent on an active customer: changes nothing, proves the right
    'customers.freeze': () => ['POST', `/api/orchestrator/admin/customers/${ids.customerId}/unfreeze`, { reason: 'matrix test' }],
    // the master agent's current role again: a no-op
    'users.manage': () => ['PUT', `/api/orchestrator/admin/users/${ids.masterUserId}/role`, { role: 'MASTER_AGENT' }],
    'compliance.audit': () => ['GET', `/api/v1/compliance/accounts/${ids.accountId}/audit`],
    'compliance.integrity': () => ['GET', '/api/v1/compliance/integrity-checks?limit=1'],
    'operations.read': () => ['GET', '/api/backoffice/transactions?limit=1'],
    'approvals.read': () => ['GET', '/api/backoffice/approvals?limit=1'],
    'audit.read': () => ['GET', '/api/backoffice/audit-trail?limit=1'],
  };

  describe.each(Object.keys(PROBES) as Permission[])('%s', (permission) => {
    it.each(APP_ROLES.map((r) => [r, ROLE_PERMISSIONS[r].includes(permission)]))('%s allowed: %s', async (role, allowed) => {
      const [method, path, body] = PROBES[permission]!();
      const res = await h.call(method, path, { token: tokens[role as AppRole], body });
      if (allowed) {
        expect(res.status).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(300);
      } else {
        expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      }
    });
  });

  it('every operation of the orchestrator is public, internal or names its permissions, and lists the roles of the matrix', async () => {
    const doc = (await fetch(`${h.internalUrl}/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const undeclared: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const required = op['x-required-permissions'];
        const internal = JSON.stringify(op.security ?? []).includes('serviceKey');
        if (required) expect(op['x-allowed-roles']).toEqual(rolesWith(required));
        else if (!op['x-public-route'] && !internal && path !== '/api/health') undeclared.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('the auditor changes nothing: every route its permissions open is a read', async () => {
    const doc = (await fetch(`${h.internalUrl}/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const writes: string[] = [];
    let reads = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (!op['x-allowed-roles']?.includes('AUDITOR')) continue;
        if (method === 'get') reads++;
        else writes.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(writes).toEqual([]);
    expect(reads).toBeGreaterThan(5);
  });

  it('every permission-guarded route of the orchestrator: the guard lets exactly the matrix roles through', async () => {
    const doc = (await fetch(`${h.internalUrl}/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const failures: string[] = [];
    let checked = 0;
    const covered = new Set<Permission>();
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const required = op['x-required-permissions'];
        if (!required) continue;
        required.forEach((p) => covered.add(p));
        const path = template.replace(/\{[^}]+\}/g, randomUUID());
        await Promise.all(
          APP_ROLES.map(async (role) => {
            const allowed = required.every((p) => ROLE_PERMISSIONS[role].includes(p));
            // An empty body: the guard decides first; what the route then says is not this test's concern.
            const res: Answer = await h.call(method.toUpperCase(), path, {
              token: tokens[role],
              body: ['get', 'delete'].includes(method) ? undefined : {},
            });
            checked++;
            const refusedByGuard = res.status === 403 && res.body?.code === 'FORBIDDEN' && GUARD_REFUSAL.test(res.body.message);
            if (allowed && (refusedByGuard || res.status === 401)) failures.push(`${role} refused on ${method} ${template}: ${res.status}`);
            if (!allowed && !refusedByGuard) failures.push(`${role} let through on ${method} ${template}: ${res.status} ${res.body?.code}`);
          }),
        );
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(50);
    // no route names a permission outside the documented list
    expect([...covered].filter((p) => !(PERMISSIONS as readonly string[]).includes(p))).toEqual([]);
  }, 60_000);
});
