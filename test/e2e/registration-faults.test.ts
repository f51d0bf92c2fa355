import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@mm/platform';
import { PlatformHarness } from '../../apps/orchestrator/test/platform-harness';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

const KINDS = [
  {
    path: '/api/orchestrator/auth/register',
    extra: {},
    steps: ['IDP_USER', 'LOCAL_USER', 'PROFILE', 'WALLET', 'ACTIVATION', 'NOTIFICATION'],
  },
  {
    path: '/api/orchestrator/auth/register/merchant',
    extra: { businessName: 'Chez Awa', category: 'RETAIL' },
    steps: ['IDP_USER', 'LOCAL_USER', 'PROFILE', 'MERCHANT', 'WALLET', 'ACTIVATION', 'NOTIFICATION'],
  },
  {
    path: '/api/orchestrator/auth/register/agent',
    extra: {},
    steps: ['IDP_USER', 'LOCAL_USER', 'PROFILE', 'AGENT', 'WALLET', 'ACTIVATION', 'NOTIFICATION'],
  },
] as const;

describe('registration: a fault at any step leaves nothing half-created', () => {
  const h = new PlatformHarness();
  const lines: Array<Record<string, unknown>> = [];
  const alerts: Array<Record<string, unknown>> = [];
  let alertServer: Server;
  let phoneSeq = 0;
  const nextPhone = () => `+2376903${String(++phoneSeq).padStart(5, '0')}`;

  beforeAll(async () => {
    alertServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        alerts.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => alertServer.listen(0, '127.0.0.1', r));
    const destination = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    await h.start({
      orchestrator: { OPS_ALERT_URL: `http://127.0.0.1:${(alertServer.address() as AddressInfo).port}/alerts`, LOG_LEVEL: 'info' },
      orchestratorLogger: createLogger({ service: 'orchestrator', level: 'info', destination }),
    });
  });
  afterAll(async () => {
    await h.stop();
    await new Promise((r) => alertServer.close(r));
  });

  /** What is left of a phone's registration attempts in each service. */
  async function leftovers(phone: string) {
    const sagas = await h.sql.query(`SELECT context FROM orchestrator.sagas WHERE phone = $1`, [phone]);
    const owners = sagas.rows.map((r) => r.context.wallet?.ownerId).filter(Boolean);
    const wallets = await h.sql.query(
      `SELECT w.status, coalesce(sum(a.balance), 0)::int AS total, count(l.id)::int AS entries
         FROM ledger.wallets w JOIN ledger.accounts a ON a.wallet_id = w.id LEFT JOIN ledger.ledgers l ON l.account_id = a.id
        WHERE w.owner_id = ANY($1::text[]) GROUP BY w.id, w.status`,
      [owners],
    );
    return {
      idpUsers: await h.count(`SELECT count(*) n FROM auth.idp_users WHERE phone = $1`, [phone]),
      localUsers: await h.count(`SELECT count(*) n FROM auth.users WHERE phone = $1`, [phone]),
      customers: await h.count(`SELECT count(*) n FROM orchestrator.customers WHERE phone = $1`, [phone]),
      merchants: await h.count(
        `SELECT count(*) n FROM orchestrator.merchants m JOIN orchestrator.customers c ON c.id = m.customer_id WHERE c.phone = $1`,
        [phone],
      ),
      agents: await h.count(
        `SELECT count(*) n FROM orchestrator.agents a JOIN orchestrator.customers c ON c.id = a.customer_id WHERE c.phone = $1`,
        [phone],
      ),
      pendingSms: await h.count(`SELECT count(*) n FROM orchestrator.sms_outbox WHERE to_phone = $1 AND status IN ('pending', 'sent')`, [
        phone,
      ]),
      // Ledger rows are never deleted: a compensated wallet is closed, empty and without entries.
      openWallets: wallets.rows.filter((w) => w.status !== 'CLOSED' || w.total !== 0 || w.entries !== 0).length,
    };
  }

  const nothingLeft = { idpUsers: 0, localUsers: 0, customers: 0, merchants: 0, agents: 0, pendingSms: 0, openWallets: 0 };

  async function events(phone: string): Promise<string[]> {
    const res = await h.sql.query(
      `SELECT e.step, e.event FROM orchestrator.saga_events e JOIN orchestrator.sagas s ON s.id = e.saga_id WHERE s.phone = $1 ORDER BY e.id`,
      [phone],
    );
    return res.rows.map((r) => `${r.step}:${r.event}`);
  }

  for (const kind of KINDS) {
    describe(kind.path, () => {
      it.each(kind.steps.map((step, i) => [i + 1, step]))(
        'fault at step %i (%s): earlier steps undone in reverse order',
        async (n, step) => {
          const phone = nextPhone();
          const res = await h.call('POST', kind.path, {
            body: { phone, pin: PIN, ...person, ...kind.extra },
            headers: { 'x-saga-fault': `fail:${step}` },
          });
          expect(res.status).toBe(502);
          expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
          expect(await leftovers(phone)).toEqual(nothingLeft);

          const log = await events(phone);
          const done = kind.steps.slice(0, Number(n) - 1);
          expect(log.filter((e) => e.endsWith(':done'))).toEqual(done.map((s) => `${s}:done`));
          expect(log).toContain(`${step}:failed`);
          // the failed step (whose outcome may be unknown) and every earlier one, last first
          expect(log.filter((e) => e.endsWith(':compensated'))).toEqual([...done, step].reverse().map((s) => `${s}:compensated`));
          const status = await h.sql.query(`SELECT status, error FROM orchestrator.sagas WHERE phone = $1`, [phone]);
          expect(status.rows[0]).toMatchObject({ status: 'compensated', error: { code: 'UPSTREAM_UNAVAILABLE' } });

          // everything undone, the phone is free again: the same person can register
          if (step === kind.steps[kind.steps.length - 1]) {
            expect((await h.call('POST', kind.path, { body: { phone, pin: PIN, ...person, ...kind.extra } })).status).toBe(201);
          }
        },
      );
    });
  }

  it('a step that did its work and then failed is undone too (the wallet is closed)', async () => {
    const phone = nextPhone();
    const res = await h.call('POST', '/api/orchestrator/auth/register', {
      body: { phone, pin: PIN, ...person },
      headers: { 'x-saga-fault': 'fail-after:WALLET' },
    });
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    const owner = (await h.sql.query(`SELECT context FROM orchestrator.sagas WHERE phone = $1`, [phone])).rows[0].context.wallet.ownerId;
    expect((await h.sql.query(`SELECT status FROM ledger.wallets WHERE owner_id = $1`, [owner])).rows).toEqual([{ status: 'CLOSED' }]);
    expect(await leftovers(phone)).toEqual(nothingLeft);
  });

  it("the original error code reaches the client: a weak PIN is auth's PIN_POLICY_VIOLATION, nothing created", async () => {
    const phone = nextPhone();
    const res = await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: '1234', ...person } });
    expect([res.status, res.body.code]).toEqual([400, 'PIN_POLICY_VIOLATION']);
    expect(await leftovers(phone)).toEqual(nothingLeft);
  });

  it('a compensation that fails is logged at ERROR with the correlation id and raises an ops alert; the rest is still undone', async () => {
    const phone = nextPhone();
    const res = await h.call('POST', '/api/orchestrator/auth/register', {
      body: { phone, pin: PIN, ...person },
      headers: { 'x-saga-fault': 'fail:NOTIFICATION,undo-fail:WALLET' },
    });
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    const correlationId = res.headers.get('x-correlation-id');
    const saga = (await h.sql.query(`SELECT id, status FROM orchestrator.sagas WHERE phone = $1`, [phone])).rows[0];
    expect(saga.status).toBe('compensation_failed');

    const errorLine = lines.find((l) => l.msg === 'compensation failed: manual action needed' && l.sagaId === saga.id);
    expect(errorLine).toMatchObject({ level: 50, step: 'WALLET', correlationId });
    for (let i = 0; i < 20 && !alerts.some((a) => a.sagaId === saga.id); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alerts.find((a) => a.sagaId === saga.id)).toMatchObject({ correlationId, failures: [{ step: 'WALLET' }] });

    // The user cannot sign in: the identity and the customer were still undone.
    const left = await leftovers(phone);
    expect(left).toMatchObject({ idpUsers: 0, localUsers: 0, customers: 0, openWallets: 1 });
    expect((await h.call('POST', '/api/auth/login', { body: { phone, pin: PIN } })).body.code).toBe('INVALID_CREDENTIALS');
  });
});
