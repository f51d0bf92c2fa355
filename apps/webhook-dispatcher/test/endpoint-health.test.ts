import { randomUUID } from 'node:crypto';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type Dispatcher, sleep, waitFor, useDispatcher } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

/** What the harness's `api` answers (the body read loosely, as the other assertions do). */
type ApiAnswer = Awaited<ReturnType<Dispatcher['api']>>;

describe('endpoint health: disable after sustained failure, hold, replay after re-enable', () => {
  // "3 days without a success" scaled to 500 ms; retries 100, 200, 400 ms … apart.
  const t = useDispatcher({
    receiver: () => new RecordingReceiver(() => ({ status: 502 })),
    env: { WEBHOOK_ENDPOINT_DISABLE_AFTER_MS: '500', WEBHOOK_BACKOFF_BASE_MS: '100' },
  });

  it('disables a failing endpoint with an operator-visible record, holds its events, and replays them once re-enabled', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const first = await t.dispatcher.enqueue(integrationId);

    await waitFor(async () => (await t.dispatcher.event(first.id))?.status === 'held', 10_000, 'first event held');
    const endpoint = await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${integrationId}`);
    expect(endpoint.body).toMatchObject({ status: 'disabled', disabledReason: expect.stringMatching(/^no successful delivery since /) });
    const health = await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${integrationId}/health-events`);
    expect(health.body).toEqual([expect.objectContaining({ kind: 'disabled' })]);
    // One failure starts the failing period, a later one past the 500 ms disables: at least two,
    // however slowly the machine ran the retries (a busy one needs fewer to pass 500 ms).
    const attemptsBefore = (await t.dispatcher.attempts(first.id)).length;
    expect(attemptsBefore).toBeGreaterThanOrEqual(2);
    expect(attemptsBefore).toBeLessThan(8);

    // Events keep accumulating while disabled, without hammering the endpoint.
    const receivedBefore = t.receiver.received.length;
    const second = await t.dispatcher.enqueue(integrationId);
    await waitFor(async () => (await t.dispatcher.event(second.id))?.status === 'held', 10_000, 'second event held');
    await sleep(200);
    expect(t.receiver.received.length).toBe(receivedBefore);
    expect(await t.dispatcher.attempts(second.id)).toEqual([]);
    const metrics = await t.dispatcher.running.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^webhook_endpoints_disabled_total 1$/m);

    // The partner fixes its server; an operator re-enables the endpoint and the held events go out.
    t.receiver.setScript(() => ({ status: 200 }));
    const enabled = await t.dispatcher.api('POST', `/internal/webhooks/endpoints/${integrationId}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ replayed: 2, endpoint: { status: 'enabled', failingSince: null } });
    for (const e of [first, second])
      await waitFor(async () => (await t.dispatcher.event(e.id))?.status === 'delivered', 10_000, `${e.id} delivered`);
    const afterHealth = await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${integrationId}/health-events`);
    expect(afterHealth.body.map((h: { kind: string }) => h.kind)).toEqual(['disabled', 'enabled']);
  });

  it('keeps an endpoint whose failures are interrupted by successes', async () => {
    const integrationId = randomUUID();
    const flaky = await new RecordingReceiver((i) => ({ status: i % 2 === 0 ? 500 : 200 })).start();
    try {
      await t.dispatcher.setEndpoint(integrationId, flaky.url);
      for (let i = 0; i < 4; i++) {
        const e = await t.dispatcher.enqueue(integrationId);
        await waitFor(async () => (await t.dispatcher.event(e.id))?.status === 'delivered', 10_000, 'delivered');
        await sleep(200);
      }
      expect((await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${integrationId}`)).body).toMatchObject({
        status: 'enabled',
        failingSince: null,
      });
    } finally {
      await flaky.stop();
    }
  });

  it('answers what its OpenAPI document says about a disabled endpoint, its health record, failed attempts and the re-enable', async () => {
    const doc = await openApiOf(t.dispatcher.running.app);
    const ENDPOINT = '/internal/webhooks/endpoints/{integrationId}';
    const ATTEMPTS = '/internal/webhooks/events/{eventId}/attempts';
    const integrationId = randomUUID();
    const endpoint = `/internal/webhooks/endpoints/${integrationId}`;
    const failing = await new RecordingReceiver(() => ({ status: 503, body: 'maintenance' })).start();
    try {
      await t.dispatcher.setEndpoint(integrationId, failing.url);
      const held = await t.dispatcher.enqueue(integrationId);
      await waitFor(async () => (await t.dispatcher.event(held.id))?.status === 'held', 10_000, 'event held');
      const answers: Array<[string, string, ApiAnswer]> = [
        ['GET', ENDPOINT, await t.dispatcher.api('GET', endpoint)],
        ['GET', `${ENDPOINT}/health-events`, await t.dispatcher.api('GET', `${endpoint}/health-events`)],
        ['GET', ATTEMPTS, await t.dispatcher.api('GET', `/internal/webhooks/events/${held.id}/attempts`)],
      ];
      failing.setScript(() => ({ status: 200 }));
      answers.push(['POST', `${ENDPOINT}/enable`, await t.dispatcher.api('POST', `${endpoint}/enable`)]);
      await waitFor(async () => (await t.dispatcher.event(held.id))?.status === 'delivered', 10_000, 'delivered after re-enable');
      answers.push(['GET', `${ENDPOINT}/health-events`, await t.dispatcher.api('GET', `${endpoint}/health-events`)]);

      expect(answers.map(([, , res]) => res.status)).toEqual([200, 200, 200, 200, 200]);
      // The nullable fields were filled in, and the lists were not empty.
      expect(answers[0][2].body).toMatchObject({ status: 'disabled', failingSince: expect.any(String), disabledAt: expect.any(String) });
      expect(answers[2][2].body[0]).toMatchObject({ statusCode: 503, outcome: 'failure', responseExcerpt: 'maintenance' });
      expect(answers[3][2].body).toMatchObject({ replayed: 1, endpoint: { status: 'enabled' } });
      expect(answers[4][2].body).toHaveLength(2);
      expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
    } finally {
      await failing.stop();
    }
  });
});
