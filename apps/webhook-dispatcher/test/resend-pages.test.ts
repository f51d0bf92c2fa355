import { randomUUID } from 'node:crypto';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { waitFor, useDispatcher } from './support/harness';

const WINDOW_ROUTE = '/internal/webhooks/events/resend-undelivered';

describe('resend-undelivered and the replay of a re-enabled endpoint, past one batch', () => {
  const t = useDispatcher({ env: { WEBHOOK_RESEND_BATCH_MAX: '2' } });

  /** Three events of an integration without an endpoint: held, in the order received. */
  const threeHeld = async (integrationId: string) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await t.dispatcher.enqueue(integrationId);
      await waitFor(async () => (await t.dispatcher.event(e.id))?.status === 'held', 10_000, 'held');
      ids.push(e.id);
    }
    return ids;
  };

  it('says when an answer is truncated, and continues after the last id without repeating one', async () => {
    const doc = await openApiOf(t.dispatcher.running.app);
    const integrationId = randomUUID();
    const window = { from: new Date(Date.now() - 1_000).toISOString(), integrationId };
    const ids = await threeHeld(integrationId);
    const to = new Date(Date.now() + 1_000).toISOString();

    const first = await t.dispatcher.api('POST', WINDOW_ROUTE, { ...window, to });
    expect(first).toEqual({ status: 202, body: { eventIds: ids.slice(0, 2), truncated: true } });
    const rest = await t.dispatcher.api('POST', WINDOW_ROUTE, { ...window, to, after: ids[1] });
    expect(rest).toEqual({ status: 202, body: { eventIds: [ids[2]], truncated: false } });
    for (const id of ids) expect((await t.dispatcher.event(id)).resendCount).toBe(1);
    expect([first, rest].flatMap((res) => undocumented(doc, 'POST', WINDOW_ROUTE, res))).toEqual([]);

    const unknown = await t.dispatcher.api('POST', WINDOW_ROUTE, { ...window, to, after: randomUUID() });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'WEBHOOK_EVENT_NOT_FOUND' } });
  });

  it('replays every held event of a re-enabled endpoint, page after page', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    await t.dispatcher.disableEndpoint(integrationId);
    const ids = await threeHeld(integrationId);
    const enabled = await t.dispatcher.api('POST', `/internal/webhooks/endpoints/${integrationId}/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { replayed: 3 } });
    for (const id of ids) await waitFor(async () => (await t.dispatcher.event(id))?.status === 'delivered', 10_000, `${id} delivered`);
    expect(t.receiver.received.map((r) => r.headers['svc-event-id']).sort()).toEqual([...ids].sort());
  });
});
