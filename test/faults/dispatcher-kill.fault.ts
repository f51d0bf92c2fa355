/**
 * kill -9 of the webhook dispatcher while it delivers a backlog, then a restart. Proves: every
 * enqueued webhook reaches the partner's receiver at least once (the killed process's jobs return to
 * the queue when their lock lapses), and exactly once after the receiver's deduplication by event id;
 * the dispatcher's own record ends with every event delivered.
 */
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import { reportRow } from './support/report';
import {
  type WebhookSink,
  enqueue,
  orderPaid,
  registerEndpoint,
  sinkVerdict,
  startSink,
  waitUntil,
  webhookQueue,
} from './support/webhook-load';

const EVENTS = 300;
const KILL_AFTER = 80;

describe('fault: kill -9 of the webhook dispatcher during deliveries', () => {
  let platform: FaultPlatform;
  let sink: WebhookSink;
  let queue: Queue;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['webhook-dispatcher'] });
    sink = await startSink();
    queue = webhookQueue(platform.redis.url);
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await sink?.close();
    await platform?.close();
  });

  it('delivers every event at least once, exactly once after deduplication', async () => {
    const dispatcher = platform.service('webhook-dispatcher');
    const integrationId = randomUUID();
    await registerEndpoint(dispatcher.url, platform.keyOf('partners'), integrationId, sink);

    const events = Array.from({ length: EVENTS }, () => orderPaid());
    const ids = events.map((e) => e.id);
    await Promise.all(events.map((e) => enqueue(queue, integrationId, e)));

    await waitUntil(`${KILL_AFTER} deliveries`, () => sink.raw.size >= KILL_AFTER, 30_000);
    const pidBefore = dispatcher.pid;
    await dispatcher.kill9();
    const receivedAtKill = sink.raw.size;
    await new Promise((r) => setTimeout(r, 500));
    await dispatcher.start();

    await waitUntil('every event received', () => ids.every((id) => sink.handled.has(id)), 60_000);
    // The dispatcher's own record catches up (a re-run job records its delivery again).
    const admin = await platform.pg.admin();
    const delivered = async () =>
      (
        await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.events WHERE id = ANY($1) AND status = 'delivered'`, [
          ids,
        ])
      ).rows[0].n;
    await waitUntil('the dispatcher to record every delivery', async () => (await delivered()) === EVENTS, 30_000);
    await admin.end();
    const verdict = sinkVerdict(sink, ids);

    reportRow({
      case: 'kill -9 webhook-dispatcher',
      faults: `kill -9 webhook-dispatcher ×${dispatcher.kills} (after ${receivedAtKill}/${EVENTS} received), restart 0.5 s later`,
      requests: EVENTS,
      committed: verdict.received,
      failedStable: 0,
      noAnswer: 0,
      lost: verdict.missing,
      duplicated: verdict.handledTwice,
      notes: `${verdict.redeliveries} redeliveries after the crash absorbed by the receiver's dedup; ${sink.refused} refused signatures; ${EVENTS} recorded delivered`,
    });

    expect(dispatcher.pid).not.toBe(pidBefore);
    expect(receivedAtKill).toBeLessThan(EVENTS);
    expect(verdict).toMatchObject({ missing: 0, handledTwice: 0, received: EVENTS });
    expect(sink.refused).toBe(0);
  });
});
