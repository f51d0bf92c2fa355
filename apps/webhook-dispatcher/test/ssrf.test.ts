import { randomUUID } from 'node:crypto';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { DnsStub } from './support/dns-stub';
import { type Dispatcher, sleep, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

/**
 * SSRF rules of partner endpoint URLs, in both modes: production (https, no loopback) and
 * development/test (loopback receivers allowed by default, every other internal range refused).
 * Host names go through a scripted DNS injected as the dispatcher's resolver.
 */
describe('webhook endpoint SSRF policy', () => {
  // One queue namespace per dispatcher: a dispatcher never runs another one's jobs.
  const redis = [createTestRedis(), createTestRedis(), createTestRedis(), createTestRedis()];
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    for (const r of redis) await r.flush();
  });

  const register = (d: Dispatcher, url: string, integrationId = randomUUID()) =>
    d.api('PUT', `/internal/webhooks/endpoints/${integrationId}`, { url });

  describe('production (NODE_ENV=production, no loopback)', () => {
    const dns = new DnsStub()
      .set('localhost', ['127.0.0.1', '::1'])
      .set('metadata.google.internal', ['169.254.169.254'])
      .set('intranet.partner.example', ['10.20.30.40'])
      .set('v6-internal.partner.example', ['fd00::10'])
      .set('mixed.partner.example', ['93.184.216.34', '192.168.1.20'])
      .set('hooks.partner.example', ['93.184.216.34'])
      // what a rebinding attacker serves: public while the URL is checked, loopback when it is used
      .set('rebind.partner.example', ['93.184.216.34'], ['127.0.0.1']);
    let d: Dispatcher;

    beforeAll(async () => {
      d = await startDispatcher(db, redis[0], { NODE_ENV: 'production', WEBHOOK_BACKOFF_BASE_MS: '100000' }, undefined, {
        resolver: dns.resolver,
      });
    });
    afterAll(() => d?.close());

    it.each([
      ['http://hooks.partner.example/hooks', 'plain http'],
      ['https://user:secret@hooks.partner.example/hooks', 'credentials in the URL'],
      ['https://hooks.partner.example/hooks#x', 'a fragment'],
      ['ftp://hooks.partner.example/hooks', 'another scheme'],
    ])('refuses %s (%s) with 400 INVALID_WEBHOOK_URL', async (url) => {
      const res = await register(d, url);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_WEBHOOK_URL');
    });

    it.each([
      ['https://127.0.0.1/hooks', 'loopback'],
      ['https://127.1.2.3:8443/hooks', 'loopback'],
      ['https://2130706433/hooks', 'loopback'], // 127.0.0.1 written as one number
      ['https://[::1]/hooks', 'loopback'],
      ['https://[::ffff:127.0.0.1]/hooks', 'loopback'],
      ['https://[::ffff:7f00:1]/hooks', 'loopback'],
      ['https://localhost/hooks', 'loopback'],
      ['https://10.1.2.3/hooks', 'private'],
      ['https://172.20.0.5/hooks', 'private'],
      ['https://192.168.0.10/hooks', 'private'],
      ['https://[::ffff:192.168.0.10]/hooks', 'private'],
      ['https://intranet.partner.example/hooks', 'private'],
      ['https://v6-internal.partner.example/hooks', 'private'],
      ['https://mixed.partner.example/hooks', 'private'],
      ['https://169.254.10.1/hooks', 'link-local'],
      ['https://[fe80::1]/hooks', 'link-local'],
      ['https://224.0.0.251/hooks', 'multicast'],
      ['https://[ff02::1]/hooks', 'multicast'],
      ['https://0.0.0.0/hooks', 'unspecified'],
      ['https://[::]/hooks', 'unspecified'],
      ['https://169.254.169.254/latest/meta-data', 'cloud-metadata'],
      ['https://[::ffff:169.254.169.254]/latest/meta-data', 'cloud-metadata'],
      ['https://[fd00:ec2::254]/latest/meta-data', 'cloud-metadata'],
      ['https://metadata.google.internal/computeMetadata/v1/', 'cloud-metadata'],
    ])('refuses %s with 400 WEBHOOK_URL_FORBIDDEN_ADDRESS (%s)', async (url, category) => {
      const integrationId = randomUUID();
      const res = await register(d, url, integrationId);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('WEBHOOK_URL_FORBIDDEN_ADDRESS');
      // Written out, so that the article is checked too ("an unspecified", not "a unspecified").
      const article = category === 'unspecified' ? 'an' : 'a';
      expect(res.body.message).toBe(`Webhook URL host resolves to ${article} ${category} address`);
      // The answer names the kind of address, never the address itself.
      expect(res.body.message).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
      expect((await d.api('GET', `/internal/webhooks/endpoints/${integrationId}`)).status).toBe(404);
    });

    it('accepts an https URL whose host resolves to public addresses only', async () => {
      const res = await register(d, 'https://hooks.partner.example/webhooks/mm');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ url: 'https://hooks.partner.example/webhooks/mm', status: 'enabled' });
    });

    it('re-resolves at each send: a host rebound to loopback after registration is refused, nothing is sent', async () => {
      const integrationId = randomUUID();
      expect((await register(d, 'https://rebind.partner.example/hooks', integrationId)).status).toBe(200);
      expect(dns.lookups('rebind.partner.example')).toBe(1);

      const envelope = await d.enqueue(integrationId);
      const attempts = await waitFor(async () => {
        const list = await d.attempts(envelope.id);
        return list.length > 0 ? list : undefined;
      }, 10_000);
      expect(attempts).toEqual([
        expect.objectContaining({ attemptNumber: 1, statusCode: null, outcome: 'failure', error: 'refused: loopback address' }),
      ]);
      expect(dns.lookups('rebind.partner.example')).toBe(2);
      expect((await d.event(envelope.id)).status).toBe('pending');
    });

    it('refuses to boot with WEBHOOK_ALLOW_LOOPBACK_URLS=true', async () => {
      await expect(startDispatcher(db, redis[1], { NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' })).rejects.toThrow(
        /WEBHOOK_ALLOW_LOOPBACK_URLS cannot be true when NODE_ENV=production/,
      );
    });
  });

  describe('development/test (loopback allowed by default)', () => {
    const dns = new DnsStub();
    let d: Dispatcher;
    let receiver: RecordingReceiver;

    beforeAll(async () => {
      receiver = await new RecordingReceiver().start();
      d = await startDispatcher(db, redis[2], { WEBHOOK_BACKOFF_BASE_MS: '200' }, undefined, { resolver: dns.resolver });
    });
    afterAll(async () => {
      await d?.close();
      await receiver?.stop();
    });

    const received = (eventId: string) => receiver.received.filter((r) => r.headers['svc-event-id'] === eventId);

    it('accepts http loopback receivers but still refuses private, link-local and metadata addresses', async () => {
      expect((await register(d, receiver.url)).status).toBe(200);
      expect((await register(d, `http://[::ffff:127.0.0.1]:${receiver.port}/hooks`)).status).toBe(200);
      for (const url of ['http://10.0.0.1/hooks', 'http://169.254.169.254/', 'http://[fe80::1]/', 'http://0.0.0.0:8080/']) {
        const res = await register(d, url);
        expect([url, res.status, res.body.code]).toEqual([url, 400, 'WEBHOOK_URL_FORBIDDEN_ADDRESS']);
      }
    });

    it('connects to the address it checked: one lookup per attempt, the HTTP client never resolves the name again', async () => {
      // Only the stub knows this name: the system resolver would answer ENOTFOUND.
      dns.set('pinned.partner.test', ['127.0.0.1']);
      const integrationId = randomUUID();
      expect((await register(d, `http://pinned.partner.test:${receiver.port}/hooks`, integrationId)).status).toBe(200);
      const envelope = await d.enqueue(integrationId);
      await waitFor(async () => (await d.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
      expect(dns.lookups('pinned.partner.test')).toBe(2); // registration + the one attempt
      const [request] = received(envelope.id);
      expect(request.headers.host).toBe(`pinned.partner.test:${receiver.port}`);
    });

    it('refuses an attempt when the name now resolves to a private address, and delivers once it is public/loopback again', async () => {
      dns.set('flaky.partner.test', ['127.0.0.1'], ['10.9.8.7'], ['127.0.0.1']);
      const integrationId = randomUUID();
      expect((await register(d, `http://flaky.partner.test:${receiver.port}/hooks`, integrationId)).status).toBe(200);
      const envelope = await d.enqueue(integrationId);
      await waitFor(async () => (await d.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
      const attempts = await d.attempts(envelope.id);
      expect(attempts.map((a: { error: string | null; statusCode: number | null }) => [a.statusCode, a.error])).toEqual([
        [null, 'refused: private address'],
        [200, null],
      ]);
      expect(received(envelope.id)).toHaveLength(1);
    });

    it('does not follow redirects: a 302 towards another receiver is a failed attempt', async () => {
      const target = await new RecordingReceiver().start();
      const bouncer = await new RecordingReceiver(() => ({ status: 302, headers: { location: target.url } })).start();
      try {
        const integrationId = randomUUID();
        expect((await register(d, bouncer.url, integrationId)).status).toBe(200);
        const envelope = await d.enqueue(integrationId);
        await waitFor(async () => (await d.attempts(envelope.id)).length >= 2, 10_000, 'two attempts');
        await sleep(100);
        expect(bouncer.received.length).toBeGreaterThanOrEqual(2);
        expect(target.received).toHaveLength(0);
        const attempts = await d.attempts(envelope.id);
        expect(attempts.every((a: { statusCode: number; outcome: string }) => a.statusCode === 302 && a.outcome === 'failure')).toBe(true);
      } finally {
        await bouncer.stop();
        await target.stop();
      }
    });

    it('can be switched off outside production: loopback is then refused like any internal address', async () => {
      const strict = await startDispatcher(db, redis[3], { WEBHOOK_ALLOW_LOOPBACK_URLS: 'false' });
      try {
        const res = await register(strict, receiver.url);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('WEBHOOK_URL_FORBIDDEN_ADDRESS');
      } finally {
        await strict.close();
      }
    });
  });
});
