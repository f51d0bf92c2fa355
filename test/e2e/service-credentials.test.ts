import { SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { type AppDefinition, CALLER_NAMES, type CallerName, internalListenerOf, newServiceKey, recognisedCallers } from '@mm/platform';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../support/boot';
import { INTERNAL_CALLER_TABLES } from '../support/service-keys';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

/**
 * Every caller → callee pair, on the five real services: for each internal route of the callee, a
 * caller its table allows gets past the credential check (whatever the route then says about the
 * empty request) and any other caller gets 403 SERVICE_NOT_ALLOWED. (A key the callee does not know
 * at all is 401 INVALID_SERVICE_CREDENTIALS: see the end of the file.)
 */
const APPS: Record<ServiceName, AppDefinition> = {
  orchestrator: orchestratorApp as never,
  auth: authApp as never,
  partners: partnersApp as never,
  'ledger-wallets': ledgerWalletsApp as never,
  'webhook-dispatcher': webhookDispatcherApp as never,
};

/** A concrete path for a route pattern: every parameter an id that exists nowhere. */
function concrete(pattern: string): string {
  return pattern.replace(/:operation\b/, 'freeze').replace(/:[A-Za-z]+/g, '6a0c2b1e-7d3f-4e5a-9b8c-1d2e3f4a5b6c');
}

type Outcome = 'passes' | 'SERVICE_NOT_ALLOWED' | 'INVALID_SERVICE_CREDENTIALS';

describe('service credentials: each caller on each service, route by route', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  const running = {} as Record<ServiceName, RunningApp>;
  /** where each service's internal routes are served (the orchestrator's on its internal listener) */
  const base = {} as Record<ServiceName, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const service of SERVICE_NAMES) {
      const env = serviceEnv(service, db, redis, {
        LEDGER_OUTBOX_POLL_MS: '0',
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
        PARTNERS_SWEEP_INTERVAL_MS: '0',
        PARTNERS_OUTBOX_POLL_MS: '0',
        SAGA_RECOVERY_INTERVAL_MS: '0',
        SMS_RELAY_POLL_MS: '0',
        PAYMENTS_RECONCILE_INTERVAL_MS: '0',
      });
      running[service] = await boot(APPS[service], env, { listen: true });
      base[service] = internalListenerOf(running[service].app)?.url ?? running[service].url;
    }
  });
  afterAll(async () => {
    for (const service of SERVICE_NAMES) await running[service]?.close();
    await redis.flush();
    await db.drop();
  });

  const pairs = SERVICE_NAMES.flatMap((callee) =>
    CALLER_NAMES.filter((caller) => caller !== callee).map((caller) => [caller, callee] as const),
  );

  it.each(pairs)('%s → %s', async (caller: CallerName, callee: ServiceName) => {
    const recognised = recognisedCallers(callee).includes(caller);
    const wrong: string[] = [];
    for (const [route, allowed] of Object.entries(INTERNAL_CALLER_TABLES[callee])) {
      const [method, pattern] = route.split(' ');
      const res = await fetch(`${base[callee]}${concrete(pattern)}`, { method, headers: { 'x-service-key': callerKey(caller) } });
      const text = await res.text();
      const code = text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined;
      // past the credential check, the route answers for itself (400 for the empty body, 404, an operator token missing…)
      const got: Outcome = code === 'SERVICE_NOT_ALLOWED' || code === 'INVALID_SERVICE_CREDENTIALS' ? code : 'passes';
      const expected: Outcome = allowed.includes(caller) ? 'passes' : recognised ? 'SERVICE_NOT_ALLOWED' : 'INVALID_SERVICE_CREDENTIALS';
      if (got !== expected) wrong.push(`${route}: expected ${expected}, got ${res.status} ${code ?? ''}`);
      if (got === 'SERVICE_NOT_ALLOWED') expect(res.status).toBe(403);
    }
    expect(wrong).toEqual([]);
  });

  it.each(SERVICE_NAMES)('a key %s does not know (its own, a made-up one, none) is 401 INVALID_SERVICE_CREDENTIALS', async (callee) => {
    const [route] = Object.keys(INTERNAL_CALLER_TABLES[callee]);
    const [method, pattern] = route.split(' ');
    for (const headers of [{ 'x-service-key': callerKey(callee) }, { 'x-service-key': newServiceKey() }, {}] as Record<string, string>[]) {
      const res = await fetch(`${base[callee]}${concrete(pattern)}`, { method, headers });
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, 'INVALID_SERVICE_CREDENTIALS']);
    }
  });
});
