import { Writable } from 'node:stream';
import { createLogger } from '@mm/platform';
import { partnersApp } from '../src/partners.app';
import { ExpirySweeper } from '../src/sweeper/expiry-sweeper.service';
import { boot } from '../../../test/support/boot';
import { serviceEnv } from '../../../test/support/test-env';
import { type PartnersHarness, connectedMerchant, startPartners } from './support/partners-harness';

describe('partners: no secret in the logs; the sweeper with two replicas', () => {
  const lines: string[] = [];
  let h: PartnersHarness;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    h = await startPartners({ LOG_LEVEL: 'debug' }, { logger: createLogger({ service: 'partners', level: 'debug', destination: sink }) });
  });
  afterAll(() => h.close());

  it('keys and webhook secrets never reach a log line, through issuance, use, refusal and rotation', async () => {
    const created = await h.integration();
    const key = created.apiKeys.live.key;
    await h.call('GET', '/partners-public/connections', { key });
    await h.call('GET', '/partners-public/connections', { key: `${key.slice(0, -1)}x` });
    await h.call('POST', '/partners-public/connections/request', {
      key,
      body: { merchantPhone: '+237650001111', scopes: ['orders.write'] },
    });
    const rotated = await h.internal(
      'POST',
      `/internal/partners/integrations/${created.integration.id}/keys/${created.apiKeys.live.id}/rotate`,
      {
        createdBy: 'admin-test',
      },
    );
    const secret = await h.internal('POST', `/internal/partners/integrations/${created.integration.id}/webhook-secret/rotate`, {
      mode: 'live',
    });
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    for (const value of [
      key,
      key.slice(12, 40),
      rotated.body.key,
      created.apiKeys.test.key,
      created.webhookSecrets.live,
      created.webhookSecrets.test,
      secret.body.secret,
    ]) {
      expect(all).not.toContain(value);
    }
    expect(all).not.toContain('+237650001111');
  });

  it('two replicas sweeping at once expire each due order exactly once, with one order.expired each', async () => {
    const replica = await boot(
      partnersApp,
      serviceEnv('partners', h.db, h.redis, {
        ORCHESTRATOR_URL: h.directory.url,
        WEBHOOK_DISPATCHER_URL: h.dispatcher.url,
        PARTNERS_SWEEP_INTERVAL_MS: '0',
        PARTNERS_ORDER_EXPIRY_GRACE_SEC: '0',
      }),
    );
    try {
      const { apiKeys } = await h.integration('Sweep POS');
      const { merchantId } = await connectedMerchant(h, apiKeys.test.key, { mode: 'test' });
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        ids.push(
          (await h.call('POST', '/partners-public/orders', { key: apiKeys.test.key, body: { merchantId, amount: 10 + i } })).body.orderId,
        );
      }
      await h.admin.query(`UPDATE partners.orders SET expires_at = created_at + interval '1 millisecond' WHERE id = ANY($1::uuid[])`, [
        ids,
      ]);
      const results = await Promise.all([
        h.partners.app.get(ExpirySweeper).sweep(),
        replica.app.get(ExpirySweeper).sweep(),
        h.partners.app.get(ExpirySweeper).sweep(),
        replica.app.get(ExpirySweeper).sweep(),
      ]);
      expect(results.reduce((sum, r) => sum + r.orders, 0)).toBe(40);
      const { rows } = await h.admin.query(
        `SELECT o.status, count(e.id)::int AS events FROM partners.orders o LEFT JOIN partners.events e ON e.subject_id = o.id AND e.type = 'order.expired'
          WHERE o.id = ANY($1::uuid[]) GROUP BY o.id, o.status`,
        [ids],
      );
      expect(rows).toHaveLength(40);
      expect(rows.every((r) => r.status === 'expired' && r.events === 1)).toBe(true);
    } finally {
      await replica.close();
    }
  });
});
