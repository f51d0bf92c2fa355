import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { EndpointsService } from '../src/endpoints/endpoints.service';
import { WebhookEventsRepository } from '../src/events/webhook-events.repository';
import { waitFor, useDispatcher, DISABLE_ENDPOINT_SQL } from './support/harness';

describe('holding an event never strands it on an endpoint enabled meanwhile', () => {
  const t = useDispatcher({ env: { WEBHOOK_BACKOFF_BASE_MS: '20' }, admin: true });

  const disable = (integrationId: string) => t.admin.query(DISABLE_ENDPOINT_SQL, [integrationId]);
  /** Until a statement waits on a lock taken FOR SHARE (the endpoint row an uncommitted enable holds). */
  const blockedOnEndpointRow = (label: string) =>
    waitFor(
      async () =>
        (
          await t.admin.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR SHARE%'`,
          )
        ).rowCount,
      10_000,
      label,
    );
  const ENABLE = `UPDATE webhooks.endpoints SET status = 'enabled', disabled_at = NULL, disabled_reason = NULL WHERE integration_id = $1`;

  /** A held event of a disabled endpoint, put back to pending as an attempt in progress has it. */
  const pendingOnDisabled = async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    await disable(integrationId);
    const envelope = await t.dispatcher.enqueue(integrationId);
    await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'held', 10_000, 'held');
    await t.admin.query(`UPDATE webhooks.events SET status = 'pending' WHERE id = $1`, [envelope.id]);
    return { integrationId, eventId: envelope.id };
  };

  it('the held write waits for an enable in progress and then writes nothing; with the endpoint still disabled it holds', async () => {
    const events = t.dispatcher.running.app.get(WebhookEventsRepository);
    const { integrationId, eventId } = await pendingOnDisabled();

    const enabling = new Client({ connectionString: t.db.adminUrl });
    await enabling.connect();
    try {
      await enabling.query('BEGIN');
      await enabling.query(ENABLE, [integrationId]);
      const hold = events.holdWhileUnreachable(eventId, integrationId);
      // The write is blocked on the endpoint row until the enable commits (a lock wait, seen in pg_stat_activity).
      await blockedOnEndpointRow('held write waiting for the enable');
      await enabling.query('COMMIT');
      expect(await hold).toBe(false);
    } finally {
      await enabling.end();
    }
    expect(await t.dispatcher.event(eventId)).toMatchObject({ status: 'pending' });

    await disable(integrationId);
    expect(await events.holdWhileUnreachable(eventId, integrationId)).toBe(true);
    expect(await t.dispatcher.event(eventId)).toMatchObject({ status: 'held' });
    // No endpoint at all: held too.
    const orphan = randomUUID();
    await t.admin.query(`UPDATE webhooks.events SET status = 'pending' WHERE id = $1`, [eventId]);
    expect(await events.holdWhileUnreachable(eventId, orphan)).toBe(true);
  });

  it('an attempt that disabled the endpoint holds its event only while the endpoint stays disabled: an enable in progress wins', async () => {
    const events = t.dispatcher.running.app.get(WebhookEventsRepository);
    const { integrationId, eventId } = await pendingOnDisabled();
    const before = (await t.dispatcher.event(eventId)).attemptCount as number;
    // The record of a failed attempt whose failure disabled the endpoint (recordFailure said so).
    const failedAttempt = (jobAttempt: number) => ({
      eventId,
      run: 0,
      integrationId,
      jobId: eventId,
      url: t.receiver.url,
      attemptedAt: new Date(),
      signedAt: Math.floor(Date.now() / 1000) + jobAttempt,
      statusCode: 500,
      errorCode: 'WEBHOOK_RECEIVER_HTTP_ERROR' as const,
      latencyMs: 1,
      success: false,
      nextStatus: 'pending' as const,
      hold: true,
    });

    const enabling = new Client({ connectionString: t.db.adminUrl });
    await enabling.connect();
    try {
      await enabling.query('BEGIN');
      await enabling.query(ENABLE, [integrationId]);
      const recorded = events.recordAttempt(failedAttempt(1));
      await blockedOnEndpointRow('attempt record waiting for the enable');
      await enabling.query('COMMIT');
      // Enabled meanwhile: the attempt is recorded, the event stays pending for its retry.
      expect(await recorded).toEqual({ attemptNumber: before + 1, status: 'pending' });
    } finally {
      await enabling.end();
    }
    expect(await t.dispatcher.event(eventId)).toMatchObject({ status: 'pending', attemptCount: before + 1 });

    await disable(integrationId);
    expect(await events.recordAttempt(failedAttempt(2))).toEqual({ attemptNumber: before + 2, status: 'held' });
    expect(await t.dispatcher.event(eventId)).toMatchObject({ status: 'held', attemptCount: before + 2 });
  });

  it('an attempt that read the endpoint as disabled just before the enable committed delivers instead of holding', async () => {
    const integrationId = randomUUID();
    await t.dispatcher.setEndpoint(integrationId, t.receiver.url);
    const endpoints = t.dispatcher.running.app.get(EndpointsService);
    // The stale read: the endpoint as it was before an enable that commits right after it.
    const read = jest
      .spyOn(endpoints, 'deliveryTarget')
      .mockImplementationOnce(async () => ({ kind: 'hold', reason: 'endpoint_disabled' }));
    try {
      const envelope = await t.dispatcher.enqueue(integrationId);
      await waitFor(async () => (await t.dispatcher.event(envelope.id))?.status === 'delivered', 10_000, 'delivered');
      expect(read).toHaveBeenCalledTimes(2);
      expect(await t.dispatcher.event(envelope.id)).toMatchObject({ status: 'delivered', attemptCount: 1 });
      expect(t.receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id)).toHaveLength(1);
    } finally {
      read.mockRestore();
    }
  });
});
