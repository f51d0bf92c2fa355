import type { ServiceName } from '@mm/contracts';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../support/boot';
import { type TestDatabase, allowedCallerKey, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

/**
 * No client mistake may reach a 500: every route each service documents in its OpenAPI document
 * is called with malformed path parameters and bodies, with and without the service key, and must
 * answer a 4xx with a stable code.
 */
const PATH_VALUES = ['not-a-uuid', '00000000-0000-4000-8000-000000000000', '%00', '1e400', '-1'];
/** Raw JSON texts, so out-of-range numbers reach the parser as written. */
const BODIES: Array<string | undefined> = [
  undefined,
  '[]',
  'null',
  '"a string"',
  '{"amount":1e400,"pin":12,"phone":{"nested":true},"toStatus":"EXPLODED","scopes":"x"}',
  '{"amount":9007199254740993,"currency":"EUR","idempotencyKey":"nope","executionContext":[]}',
  '{"amount":"12","fee":-1,"url":"javascript:alert(1)","from":"yesterday","to":"tomorrow"}',
];
const STABLE_CODE = /^[A-Z][A-Z0-9_]+$/;
const SERVICES = ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher'] as const;

describe('malformed input never reaches a 500', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  const apps: Array<[string, RunningApp]> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const defs = [
      ['orchestrator', orchestratorApp],
      ['auth', authApp],
      ['partners', partnersApp],
      ['ledger-wallets', ledgerWalletsApp],
      ['webhook-dispatcher', webhookDispatcherApp],
    ] as const;
    for (const [name, def] of defs) {
      apps.push([
        name,
        // Auth's per-address limits off: every request here comes from one address, and the fuzzed
        // input must reach validation rather than stop at 429 (the limits have their own tests).
        await boot(
          def as never,
          serviceEnv(name, db, redis, {
            LEDGER_OUTBOX_POLL_MS: '0',
            LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
            ...(name === 'auth' ? { LOGIN_LIMIT_PER_IP: '0', OTP_SEND_LIMIT_PER_IP: '0', OTP_VERIFY_LIMIT_PER_IP: '0' } : {}),
          }),
        ),
      ]);
    }
  });
  afterAll(async () => {
    for (const [, app] of apps) await app.close();
    await db.drop();
    await redis.flush();
  });

  // One test per service (each with its own time budget), and the calls of one URL in parallel:
  // some ten thousand calls in all, which a loaded 2-core CI machine did not finish in 120 s in series.
  it.each(SERVICES)(
    '%s answers every documented route with a 4xx and a stable code, never a 5xx',
    async (name) => {
      const running = apps.find(([n]) => n === name)![1];
      const failures: string[] = [];
      let calls = 0;
      const doc = (await running.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, unknown>>;
      };
      for (const [template, operations] of Object.entries(doc.paths)) {
        // Not client input: the aggregated health reports upstreams (not booted here) as 503.
        if (template === '/api/health') continue;
        for (const method of Object.keys(operations).map((m) => m.toUpperCase())) {
          for (const value of PATH_VALUES) {
            const url = template.replace(/\{[^}]+\}/g, value);
            // with a key the route's table allows, so the input reaches validation
            const key = allowedCallerKey(name as ServiceName, method, url);
            const cases = (method === 'GET' || method === 'DELETE' ? [undefined] : BODIES).flatMap((body) =>
              [{}, { 'x-service-key': key, authorization: 'Bearer x.y.z', 'x-idempotency-key': 'k' }].map((headers) => ({ body, headers })),
            );
            await Promise.all(
              cases.map(async ({ body, headers }) => {
                const res = await running.app.inject({
                  method: method as never,
                  url,
                  headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
                  payload: body,
                });
                calls++;
                const code = res.headers['content-type']?.toString().includes('json') ? (res.json() as { code?: string }).code : undefined;
                if (res.statusCode >= 500 || (res.statusCode >= 400 && !STABLE_CODE.test(code ?? ''))) {
                  failures.push(`${name} ${method} ${url} ${body} → ${res.statusCode} ${res.body.slice(0, 160)}`);
                }
              }),
            );
          }
        }
      }
      // every service documents routes with bodies: at least one route's 5 path values × 7 bodies × 2 headers
      expect(calls).toBeGreaterThanOrEqual(70);
      expect(failures).toEqual([]);
    },
    300_000,
  );
});
