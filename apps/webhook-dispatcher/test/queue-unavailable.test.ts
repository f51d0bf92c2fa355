import { randomUUID } from 'node:crypto';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { type Dispatcher, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';
import { TcpProxy } from './support/tcp-proxy';

const EVENTS = '/internal/webhooks/events';

describe('resends and replays while Redis is unreachable or slow: 503 says whether the job may exist', () => {
  const redis = createTestRedis();
  let db: TestDatabase;
  let dispatcher: Dispatcher;
  let receiver: RecordingReceiver;
  let proxy: TcpProxy;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await new RecordingReceiver(() => ({ status: 500 })).start();
    const target = new URL(redis.url);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 6379)).start();
    const viaProxy = new URL(redis.url);
    viaProxy.port = String(proxy.port);
    dispatcher = await startDispatcher(db, redis, {
      REDIS_URL: viaProxy.toString(),
      WEBHOOK_BACKOFF_BASE_MS: '20',
      WEBHOOK_ENQUEUE_TIMEOUT_MS: '1000',
    });
    // The harness's own producer shares the cut connection: its errors are expected here.
    dispatcher.queue.on('error', () => undefined);
  });
  afterAll(async () => {
    proxy?.release();
    await proxy?.start().catch(() => undefined);
    await dispatcher?.close();
    await proxy?.stop();
    await receiver?.stop();
    await db?.drop();
    await redis.flush();
  });

  /** Cuts Redis and waits until the dispatcher has noticed (its health check fails). */
  const cutRedis = async () => {
    await proxy.stop();
    await waitFor(
      async () => (await dispatcher.running.app.inject({ method: 'GET', url: '/health' })).statusCode === 503,
      10_000,
      'redis down',
    );
  };

  /** Calls the route until Redis is back and it answers `status` (failed calls change nothing). */
  const untilAnswered = (method: 'POST', url: string, status: number, payload?: unknown) =>
    waitFor(
      async () => {
        const res = await dispatcher.api(method, url, payload);
        if (res.status === status) return res;
        expect(res).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNAVAILABLE' } });
        return undefined;
      },
      20_000,
      `${url} answered ${status}`,
    );

  it('a failed event whose resend Redis does not take stays failed; the window resend sends it once Redis is back', async () => {
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    const from = new Date(Date.now() - 1_000).toISOString();
    const envelope = await dispatcher.enqueue(integrationId);
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'failed', 15_000, 'failed after all attempts');

    await cutRedis();
    const one = await dispatcher.api('POST', `${EVENTS}/${envelope.id}/resend`);
    expect(one).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNAVAILABLE' } });
    const window = { from, to: new Date(Date.now() + 60_000).toISOString(), integrationId };
    const all = await dispatcher.api('POST', `${EVENTS}/resend-undelivered`, window);
    expect(all).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNAVAILABLE' } });
    const fresh = await dispatcher.api('POST', EVENTS, { integrationId, event: 'order.paid', id: randomUUID(), data: {} });
    expect(fresh).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNAVAILABLE' } });
    // Not stranded 'pending': the window resend still selects it.
    expect(await dispatcher.event(envelope.id)).toMatchObject({ status: 'failed' });

    receiver.setScript(() => ({ status: 200 }));
    await proxy.start();
    const resent = await untilAnswered('POST', `${EVENTS}/resend-undelivered`, 202, window);
    expect(resent.body).toEqual({ eventIds: [envelope.id], truncated: false });
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 15_000, 'delivered');
  });

  it('an enable whose replay Redis does not take leaves the events held; enabling again sends them', async () => {
    receiver.setScript(() => ({ status: 200 }));
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    await dispatcher.disableEndpoint(integrationId);
    const envelope = await dispatcher.enqueue(integrationId);
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'held', 10_000, 'held');

    await cutRedis();
    const enable = `/internal/webhooks/endpoints/${integrationId}/enable`;
    expect(await dispatcher.api('POST', enable)).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNAVAILABLE' } });
    expect((await dispatcher.api('GET', `/internal/webhooks/endpoints/${integrationId}`)).body.status).toBe('enabled');
    expect(await dispatcher.event(envelope.id)).toMatchObject({ status: 'held' });

    await proxy.start();
    const again = await untilAnswered('POST', enable, 200);
    expect(again.body).toMatchObject({ replayed: 1, endpoint: { status: 'enabled' } });
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 15_000, 'delivered');
    expect(receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id)).toHaveLength(1);
  });

  it('a resend whose add is held up on a slow link answers 503 WEBHOOK_QUEUE_UNCONFIRMED and leaves the event pending: the late job delivers it once, no second resend is invited', async () => {
    receiver.setScript(() => ({ status: 500 }));
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    const from = new Date(Date.now() - 1_000).toISOString();
    const envelope = await dispatcher.enqueue(integrationId);
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'failed', 15_000, 'failed after all attempts');
    receiver.setScript(() => ({ status: 200 }));
    const before = receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id).length;

    // Connected, but nothing reaches Redis: the add is written and waits on the way.
    proxy.hold();
    let released = false;
    try {
      const one = await dispatcher.api('POST', `${EVENTS}/${envelope.id}/resend`);
      expect(one).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNCONFIRMED' } });
      // Not put back to failed: the window resend does not select it, so an operator cannot queue it twice.
      expect(await dispatcher.event(envelope.id)).toMatchObject({ status: 'pending', resendCount: 1 });
      const window = { from, to: new Date(Date.now() + 60_000).toISOString(), integrationId };
      expect(await dispatcher.api('POST', `${EVENTS}/resend-undelivered`, window)).toEqual({
        status: 202,
        body: { eventIds: [], truncated: false },
      });
      proxy.release();
      released = true;
    } finally {
      if (!released) proxy.release();
    }

    // The add reaches Redis late and its job runs: one delivery.
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'delivered', 15_000, 'delivered by the late job');
    expect(await dispatcher.queue.getJobState(`${envelope.id}-resend-1`)).toBe('completed');
    expect(receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id).length - before).toBe(1);
  });

  it('a keyed resend Redis does not take keeps nothing (no key, no run): the same request sent again once Redis is back starts the run', async () => {
    receiver.setScript(() => ({ status: 200 }));
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    await dispatcher.disableEndpoint(integrationId);
    const envelope = await dispatcher.enqueue(integrationId);
    await waitFor(async () => (await dispatcher.event(envelope.id))?.status === 'held', 10_000, 'held');

    await cutRedis();
    const url = `${EVENTS}/${envelope.id}/resend`;
    const key = { idempotencyKey: randomUUID() };
    // Two identical requests at once: neither may answer `repeated` for a run that was never queued.
    const refused = await Promise.all([dispatcher.api('POST', url, key), dispatcher.api('POST', url, key)]);
    for (const res of refused) expect(res).toMatchObject({ status: 503, body: { code: 'WEBHOOK_QUEUE_UNAVAILABLE' } });
    expect(await dispatcher.event(envelope.id)).toMatchObject({ status: 'held', resendCount: 0 });

    await proxy.start();
    const sent = await untilAnswered('POST', url, 202, key);
    expect(sent.body).toEqual({ eventId: envelope.id, jobId: `${envelope.id}-resend-1`, repeated: false });
    expect(await dispatcher.api('POST', url, key)).toMatchObject({
      status: 202,
      body: { jobId: `${envelope.id}-resend-1`, repeated: true },
    });
  });
});
