import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { type Dispatcher, startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

const WINDOW_ROUTE = '/internal/webhooks/events/resend-undelivered';

describe('resend-undelivered and the replay of a re-enabled endpoint, past one batch', () => {
  const redis = createTestRedis();
  let db: TestDatabase;
  let dispatcher: Dispatcher;
  let receiver: RecordingReceiver;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await new RecordingReceiver().start();
    dispatcher = await startDispatcher(db, redis, { WEBHOOK_RESEND_BATCH_MAX: '2' });
  });
  afterAll(async () => {
    await dispatcher?.close();
    await receiver?.stop();
    await db?.drop();
    await redis.flush();
  });

  /** Three events of an integration without an endpoint: held, in the order received. */
  const threeHeld = async (integrationId: string) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await dispatcher.enqueue(integrationId);
      await waitFor(async () => (await dispatcher.event(e.id))?.status === 'held', 10_000, 'held');
      ids.push(e.id);
    }
    return ids;
  };

  it('says when an answer is truncated, and continues after the last id without repeating one', async () => {
    const doc = await openApiOf(dispatcher.running.app);
    const integrationId = randomUUID();
    const window = { from: new Date(Date.now() - 1_000).toISOString(), integrationId };
    const ids = await threeHeld(integrationId);
    const to = new Date(Date.now() + 1_000).toISOString();

    const first = await dispatcher.api('POST', WINDOW_ROUTE, { ...window, to });
    expect(first).toEqual({ status: 202, body: { eventIds: ids.slice(0, 2), truncated: true } });
    const rest = await dispatcher.api('POST', WINDOW_ROUTE, { ...window, to, after: ids[1] });
    expect(rest).toEqual({ status: 202, body: { eventIds: [ids[2]], truncated: false } });
    for (const id of ids) expect((await dispatcher.event(id)).resendCount).toBe(1);
    expect([first, rest].flatMap((res) => undocumented(doc, 'POST', WINDOW_ROUTE, res))).toEqual([]);

    const unknown = await dispatcher.api('POST', WINDOW_ROUTE, { ...window, to, after: randomUUID() });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'WEBHOOK_EVENT_NOT_FOUND' } });
  });

  it('replays every held event of a re-enabled endpoint, page after page', async () => {
    const integrationId = randomUUID();
    await dispatcher.setEndpoint(integrationId, receiver.url);
    const admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    try {
      await admin.query(`UPDATE webhooks.endpoints SET status = 'disabled', disabled_at = now() WHERE integration_id = $1`, [
        integrationId,
      ]);
    } finally {
      await admin.end();
    }
    const ids = await threeHeld(integrationId);
    const enabled = await dispatcher.api('POST', `/internal/webhooks/endpoints/${integrationId}/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { replayed: 3 } });
    for (const id of ids) await waitFor(async () => (await dispatcher.event(id))?.status === 'delivered', 10_000, `${id} delivered`);
    expect(receiver.received.map((r) => r.headers['svc-event-id']).sort()).toEqual([...ids].sort());
  });
});
