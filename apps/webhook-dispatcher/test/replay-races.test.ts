import { randomUUID } from 'node:crypto';
import { WEBHOOK_JOBS, webhookJobOptions } from '@mm/contracts';
import { useDispatcher, waitFor } from './support/harness';

const EVENTS = '/internal/webhooks/events';

/**
 * Staff recoveries, enables and resends racing each other: whatever the order, the partner receives
 * each event once
 * (docs/partners.md "The back office: integrations, keys on four eyes, webhook deliveries").
 */
describe('dispatcher: recoveries, enables and resends at once deliver each event once', () => {
  const t = useDispatcher({ admin: true });

  /** `n` events held by a disabled endpoint that points at the receiver. */
  const heldOnDisabled = async (n: number) => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    await t.dispatcher.disableEndpoint(integrationId);
    const from = new Date(Date.now() - 1_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await t.dispatcher.enqueue(integrationId)).id);
    for (const id of ids) await waitFor(async () => (await t.dispatcher.event(id))?.status === 'held', 10_000, `${id} held`);
    return { integrationId, ids, window: { from, to: new Date(Date.now() + 60_000).toISOString(), integrationId } };
  };

  /** Every job has run (nothing waiting, delayed or active): no delivery is still to come. */
  const drained = () =>
    waitFor(
      async () => {
        const counts = await t.dispatcher.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0);
      },
      15_000,
      'queue drained',
    );

  const deliveriesOf = (id: string) => t.receiver.received.filter((r) => r.headers['svc-event-id'] === id).length;

  const allDelivered = async (ids: string[]) => {
    for (const id of ids) await waitFor(async () => (await t.dispatcher.event(id))?.status === 'delivered', 15_000, `${id} delivered`);
    await drained();
  };

  it('three operators recovering the same window at once: each event is queued by one of them and received once', async () => {
    const { integrationId, ids, window } = await heldOnDisabled(6);
    // The endpoint works again, enabled behind the back of the replay: only the recoveries send.
    await t.admin.query(
      `UPDATE webhooks.endpoints SET status = 'enabled', disabled_at = NULL, disabled_reason = NULL WHERE integration_id = $1`,
      [integrationId],
    );

    const answers = await Promise.all([1, 2, 3].map(() => t.dispatcher.api('POST', `${EVENTS}/resend-undelivered`, window)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    const queued = answers.flatMap((a) => a.body.eventIds as string[]);
    expect([...queued].sort()).toEqual([...ids].sort());

    await allDelivered(ids);
    expect(ids.map(deliveriesOf)).toEqual(ids.map(() => 1));
    for (const id of ids) expect(await t.dispatcher.event(id)).toMatchObject({ status: 'delivered', resendCount: 1 });
  });

  it('recoveries beside the enable of the endpoint: each held event is received once', async () => {
    const { integrationId, ids, window } = await heldOnDisabled(10);

    const [enabled, ...recovered] = await Promise.all([
      t.dispatcher.api('POST', `/internal/webhooks/endpoints/${integrationId}/enable`),
      t.dispatcher.api('POST', `${EVENTS}/resend-undelivered`, window),
      t.dispatcher.api('POST', `${EVENTS}/resend-undelivered`, window),
      t.dispatcher.api('POST', `${EVENTS}/resend-undelivered`, window),
    ]);
    expect([enabled.status, ...recovered.map((r) => r.status)]).toEqual([200, 202, 202, 202]);

    await allDelivered(ids);
    expect(ids.map(deliveriesOf)).toEqual(ids.map(() => 1));
  });

  it('a resend with a key of an event still pending is refused with 409 WEBHOOK_EVENT_PENDING and changes nothing', async () => {
    const { ids } = await heldOnDisabled(1);
    const [eventId] = ids;
    // Still being delivered (its retries are going on).
    await t.admin.query(`UPDATE webhooks.events SET status = 'pending' WHERE id = $1`, [eventId]);
    const before = await t.dispatcher.event(eventId);
    const key = randomUUID();
    const refused = await t.dispatcher.api('POST', `${EVENTS}/${eventId}/resend`, { idempotencyKey: key });
    expect(refused).toMatchObject({ status: 409, body: { code: 'WEBHOOK_EVENT_PENDING' } });
    expect(await t.dispatcher.event(eventId)).toEqual(before);
    const kept = await t.admin.query(`SELECT 1 FROM webhooks.resend_requests WHERE idempotency_key = $1`, [key]);
    expect(kept.rowCount).toBe(0);

    // Once it is held (or failed) again, the same key resends it.
    await t.admin.query(`UPDATE webhooks.events SET status = 'held' WHERE id = $1`, [eventId]);
    const resent = await t.dispatcher.api('POST', `${EVENTS}/${eventId}/resend`, { idempotencyKey: key });
    expect(resent).toMatchObject({ status: 202, body: { jobId: `${eventId}-resend-1`, repeated: false } });
  });

  it('a delivery job whose run is no longer the latest sends nothing; the latest run delivers', async () => {
    const { integrationId, ids } = await heldOnDisabled(1);
    const [eventId] = ids;
    await t.admin.query(
      `UPDATE webhooks.endpoints SET status = 'enabled', disabled_at = NULL, disabled_reason = NULL WHERE integration_id = $1`,
      [integrationId],
    );
    // Two runs were begun since (run 2 is the latest); the job of run 1 comes late.
    await t.admin.query(`UPDATE webhooks.events SET status = 'pending', resend_count = 2 WHERE id = $1`, [eventId]);
    const stale = `${eventId}-resend-1`;
    await t.dispatcher.queue.add(WEBHOOK_JOBS.resend, { eventId }, webhookJobOptions(stale));
    await waitFor(async () => (await t.dispatcher.queue.getJobState(stale)) === 'completed', 10_000, 'stale job completed');
    expect(deliveriesOf(eventId)).toBe(0);
    expect(await t.dispatcher.event(eventId)).toMatchObject({ status: 'pending', resendCount: 2 });

    await t.dispatcher.queue.add(WEBHOOK_JOBS.resend, { eventId }, webhookJobOptions(`${eventId}-resend-2`));
    await allDelivered(ids);
    expect(deliveriesOf(eventId)).toBe(1);
    // The held first dispatch made no attempt; the stale run made none either.
    expect(await t.dispatcher.attempts(eventId)).toEqual([expect.objectContaining({ jobId: `${eventId}-resend-2`, outcome: 'success' })]);
  });
});
