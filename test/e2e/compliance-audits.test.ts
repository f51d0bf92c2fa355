import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { APP_ROLES, type AppRole } from '@mm/contracts';
import { generateServiceKeys, internalListenerOf, serviceCredentialEnv } from '@mm/platform';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import type { Permission } from '../../apps/orchestrator/src/access/permissions';
import { ROLE_PERMISSIONS } from '../../apps/orchestrator/src/access/role-matrix';
import { type RunningApp, boot } from '../support/boot';
import { startOperatorSigner } from '../support/funding';
import { type OpenApiDocument, undocumented } from '../support/openapi-departures';
import { serviceEnv } from '../support/test-env';
import { MoneyPlatform, type Role } from './money-platform';

const AUDIT = (accountId: string) => `/api/v1/compliance/accounts/${accountId}/audit`;
const CHECKS = '/api/v1/compliance/integrity-checks';

/**
 * Compliance officers audit accounts and run integrity checks through the orchestrator's public
 * routes: the guard grants them by the role matrix, the ledger verifies the officer's own token
 * again and records the officer (not the orchestrator) as the one who asked.
 */
describe('compliance routes: audits and integrity checks through the gateway, recorded under the officer', () => {
  const p = new MoneyPlatform();
  const tokens = {} as Record<AppRole, string>;
  const userIds = {} as Record<Exclude<AppRole, 'ADMIN'>, string>;
  let account: string;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    await p.start();
    for (const role of APP_ROLES.filter((r): r is Role => r !== 'ADMIN')) {
      const user = await p.register(role);
      tokens[role] = user.token;
      userIds[role] = user.userId;
      if (role === 'CUSTOMER') account = user.accounts.XAF;
    }
    tokens.ADMIN = await p.adminToken();
    await p.fund(account, 1_000);
    doc = (await fetch(`${internalListenerOf(p.gateway.app)!.url}/openapi.json`).then((r) => r.json())) as OpenApiDocument;
  }, 120_000);
  afterAll(() => p.stop());

  /** Each route with the permission it needs; every role of the matrix, row by row. */
  const ROUTES: Array<[string, string, () => string, Permission]> = [
    ['GET', '/api/v1/compliance/accounts/{accountId}/audit', () => AUDIT(account), 'compliance.audit'],
    ['POST', CHECKS, () => CHECKS, 'compliance.integrity'],
    ['GET', CHECKS, () => `${CHECKS}?limit=5`, 'compliance.integrity'],
  ];
  describe.each(ROUTES)('%s %s', (method, documented, path, permission) => {
    it.each(APP_ROLES.map((r) => [r, ROLE_PERMISSIONS[r].includes(permission)] as const))('%s allowed: %s', async (role, allowed) => {
      const res = await p.call(method, path(), { token: tokens[role] });
      if (allowed) expect(res.status).toBe(200);
      else expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(undocumented(doc, method, documented, res)).toEqual([]);
    });
  });

  it("an audit names the officer in the ledger's journal, with the orchestrator as the relaying service and the request id", async () => {
    const res = await p.call('GET', AUDIT(account), { token: tokens.COMPLIANCE });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'OK',
      account: { id: account, currency: 'XAF', accountType: 'customer' },
      balances: { stored: 1_000, recomputed: '1000', gap: '0', consistent: true },
    });
    const journal = await p.sql.query(
      `SELECT operator_id, operator_roles, caller, request_id FROM ledger.account_audits WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [account],
    );
    expect(journal.rows).toEqual([
      {
        operator_id: userIds.COMPLIANCE,
        operator_roles: ['COMPLIANCE'],
        caller: 'orchestrator',
        request_id: res.headers.get('x-request-id'),
      },
    ]);
  });

  it('an integrity check run by an officer records the officer; the history lists it first', async () => {
    const run = await p.call('POST', CHECKS, { token: tokens.COMPLIANCE });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ trigger: 'ON_DEMAND', status: 'OK', gapCount: 0, requestedBy: userIds.COMPLIANCE });
    // The ledger's exact decimal sums, relayed unchanged.
    expect(run.body.currencyTotals).toEqual([
      { currency: 'XAF', storedTotal: '0', ledgerTotal: '0', gap: '0' },
      { currency: 'XOF', storedTotal: '0', ledgerTotal: '0', gap: '0' },
    ]);
    const listed = await p.call('GET', `${CHECKS}?limit=1`, { token: tokens.ADMIN });
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: run.body.id,
        requestedBy: userIds.COMPLIANCE,
        requestedByRoles: ['COMPLIANCE'],
        caller: 'orchestrator',
      }),
    ]);
  });

  it.each([
    ['an account id that is not a UUID', 400, 'VALIDATION_ERROR', (): string => AUDIT('not-a-uuid')],
    ['an unknown account', 404, 'ACCOUNT_NOT_FOUND', (): string => AUDIT(randomUUID())],
    ['a limit above 100', 400, 'VALIDATION_ERROR', (): string => `${CHECKS}?limit=500`],
  ] as const)('%s: %i %s, as documented', async (_name, status, code, path) => {
    const res = await p.call('GET', path(), { token: tokens.COMPLIANCE });
    expect([res.status, res.body.code]).toEqual([status, code]);
    const documented = path().startsWith(CHECKS) ? CHECKS : '/api/v1/compliance/accounts/{accountId}/audit';
    expect(undocumented(doc, 'GET', documented, res)).toEqual([]);
  });

  it('without a token: 401 UNAUTHORIZED, as documented, and nothing reaches the ledger', async () => {
    const before = (await p.sql.query(`SELECT count(*)::int AS n FROM ledger.balance_integrity_checks`)).rows[0].n;
    const res = await p.call('POST', CHECKS);
    expect([res.status, res.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(undocumented(doc, 'POST', CHECKS, res)).toEqual([]);
    expect((await p.sql.query(`SELECT count(*)::int AS n FROM ledger.balance_integrity_checks`)).rows[0].n).toBe(before);
  });

  it("a ledger that cannot verify auth's tokens is the platform's fault: 502 UPSTREAM_UNAVAILABLE, not a 401 for the officer", async () => {
    // a second ledger on the same database, trusting some other key set than auth's
    const stranger = await startOperatorSigner();
    let ledger: RunningApp | undefined;
    let gateway: RunningApp | undefined;
    try {
      ledger = await boot(
        ledgerWalletsApp,
        serviceEnv('ledger-wallets', p.db, p.redis, {
          LEDGER_CONSENT_JWKS_URL: stranger.jwksUrl,
          LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
          LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
          LEDGER_OUTBOX_POLL_MS: '0',
        }),
        { listen: true },
      );
      gateway = await p.bootGateway({ LEDGER_URL: ledger.url });
      const res = await p.call('GET', AUDIT(account), { token: tokens.COMPLIANCE, via: gateway });
      expect([res.status, res.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
      expect(undocumented(doc, 'GET', '/api/v1/compliance/accounts/{accountId}/audit', res)).toEqual([]);
    } finally {
      await ledger?.close();
      await stranger.close();
    }
  }, 60_000);
  it('a slow audit is waited for once: one officer request, one request to the ledger, one audit row', async () => {
    // The money path's budget is cut to 300 ms; the ledger's answer is held back 1.5 s. Retried on that
    // budget, the audit used to reach the ledger three times (three rows) and answer 504.
    const proxy = await delayingProxy(p.ledger.url, /\/audit$/, 1_500);
    try {
      const gateway = await p.bootGateway({ LEDGER_URL: proxy.url, LEDGER_TIMEOUT_MS: '300', LEDGER_RETRY_BASE_MS: '0' });
      const count = async () =>
        (await p.sql.query(`SELECT count(*)::int AS n FROM ledger.account_audits WHERE account_id = $1`, [account])).rows[0].n as number;
      const before = await count();
      const res = await p.call('GET', AUDIT(account), { token: tokens.COMPLIANCE, via: gateway });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ account: { id: account }, status: 'OK' });
      expect(proxy.delayed()).toBe(1);
      expect((await count()) - before).toBe(1);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("a ledger that refuses the orchestrator's service key is the platform's fault: 502 UPSTREAM_UNAVAILABLE, as documented", async () => {
    // a second ledger on the same database whose trusted callers hold other digests (a rotated key)
    let ledger: RunningApp | undefined;
    try {
      ledger = await boot(
        ledgerWalletsApp,
        serviceEnv('ledger-wallets', p.db, p.redis, {
          AUTH_URL: p.auth.url,
          INTERNAL_TRUSTED_CALLERS: serviceCredentialEnv('ledger-wallets', generateServiceKeys()).INTERNAL_TRUSTED_CALLERS,
          LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
          LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
          LEDGER_OUTBOX_POLL_MS: '0',
        }),
        { listen: true },
      );
      const gateway = await p.bootGateway({ LEDGER_URL: ledger.url });
      const before = (await p.sql.query(`SELECT count(*)::int AS n FROM ledger.balance_integrity_checks`)).rows[0].n;
      const answers = [
        [
          'GET',
          '/api/v1/compliance/accounts/{accountId}/audit',
          await p.call('GET', AUDIT(account), { token: tokens.COMPLIANCE, via: gateway }),
        ],
        ['POST', CHECKS, await p.call('POST', CHECKS, { token: tokens.COMPLIANCE, via: gateway })],
        ['GET', CHECKS, await p.call('GET', CHECKS, { token: tokens.COMPLIANCE, via: gateway })],
      ] as const;
      for (const [method, documented, res] of answers) {
        expect([res.status, res.body.code]).toEqual([502, 'UPSTREAM_UNAVAILABLE']);
        expect(undocumented(doc, method, documented, res)).toEqual([]);
      }
      expect((await p.sql.query(`SELECT count(*)::int AS n FROM ledger.balance_integrity_checks`)).rows[0].n).toBe(before);
    } finally {
      await ledger?.close();
    }
  }, 60_000);
});

/**
 * Forwards everything to `target`; a request whose path matches `slow` reaches the ledger at once
 * but its answer is held back `delayMs` (the ledger has done the work, the caller is still waiting).
 */
async function delayingProxy(target: string, slow: RegExp, delayMs: number) {
  let delayed = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hold = slow.test((req.url ?? '').split('?')[0]);
      if (hold) delayed++;
      const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () =>
          setTimeout(
            () => {
              if (res.destroyed) return;
              res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
            },
            hold ? delayMs : 0,
          ),
        );
      });
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** how many requests matching `slow` reached the proxy */
    delayed: () => delayed,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
