import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MAX_INTERVAL_MS, MetricsService, PostgresJobLease } from '@mm/platform';
import { EventRelay } from '../src/events/event-relay.service';
import { type PartnersHarness, startPartners } from './support/partners-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The event relay is woken by the events table's insert trigger (a NOTIFY delivered on commit),
 * whoever wrote the row: here the rows are inserted straight into `partners.events`, so no code
 * path kicks the relay in-process, and the poll is set so long (MAX_INTERVAL_MS) that it never
 * runs during the test. Only the wake-up can hand them to the dispatcher.
 */
describe('partners event relay: woken by the commit', () => {
  let h: PartnersHarness;
  let integrationId: string;
  const extra: EventRelay[] = [];
  const leases: PostgresJobLease[] = [];

  beforeAll(async () => {
    h = await startPartners({ PARTNERS_OUTBOX_POLL_MS: String(MAX_INTERVAL_MS) });
    integrationId = (await h.integration()).integration.id;
    expect(await h.partners.app.get(EventRelay).wakeReady()).toBe(true);
  }, 30_000);

  afterAll(async () => {
    for (const relay of extra) await relay.onApplicationShutdown();
    for (const lease of leases) await lease.close();
    await h?.close();
  });

  /** `n` order.paid events in one transaction (one INSERT each), committed or rolled back. */
  const insertEvents = async (n: number, commit = true) => {
    const ids: string[] = Array.from({ length: n }, () => randomUUID());
    const c = new Client({ connectionString: h.db.adminUrl });
    await c.connect();
    await c.query('BEGIN');
    for (const id of ids) {
      await c.query(
        `INSERT INTO partners.events (id, integration_id, livemode, type, subject_id, data) VALUES ($1, $2, true, 'order.paid', $3, $4)`,
        [id, integrationId, randomUUID(), JSON.stringify({ orderId: id, amount: 1500, currencyCode: 'XAF' })],
      );
    }
    await c.query(commit ? 'COMMIT' : 'ROLLBACK');
    await c.end();
    return ids;
  };
  const rows = async (ids: string[]) =>
    (
      await h.admin.query<{ id: string; dispatched_at: Date | null; dispatch_attempts: number }>(
        `SELECT id, dispatched_at, dispatch_attempts FROM partners.events WHERE id = ANY($1::uuid[])`,
        [ids],
      )
    ).rows;
  const dispatched = async (ids: string[], timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await rows(ids);
      if (r.length === ids.length && r.every((x) => x.dispatched_at !== null)) return r;
      if (Date.now() > deadline) return r;
      await sleep(20);
    }
  };

  it('an event committed outside any in-process kick is handed over and delivered; a rolled-back one is not', async () => {
    const rolledBack = await insertEvents(1, false);
    const [id] = await insertEvents(1);
    const r = await dispatched([id]);
    expect(r.map((x) => [x.dispatched_at !== null, x.dispatch_attempts])).toEqual([[true, 1]]);
    const delivered = await h.receiver.waitFor((w) => w.body.id === id);
    expect(delivered.body.event).toBe('order.paid');
    expect(await rows(rolledBack)).toEqual([]);
    expect(h.receiver.received.some((w) => rolledBack.includes(w.body.id))).toBe(false);
  });

  it('a second replica woken by the same commits: every event is handed over once', async () => {
    // Another process's relay on the same database: its own pool, lease and LISTEN connection.
    const ds = new DataSource({ type: 'postgres', url: h.partners.config.DATABASE_URL, extra: { max: 4 } });
    await ds.initialize();
    const lease = new PostgresJobLease({ service: 'partners', databaseUrl: h.partners.config.DATABASE_URL });
    leases.push(lease);
    const metrics = new MetricsService();
    const second = new EventRelay(ds, h.partners.config, metrics, lease);
    extra.push(second);
    second.onApplicationBootstrap();
    try {
      expect(await second.wakeReady()).toBe(true);
      const ids = (await Promise.all([0, 1, 2, 3, 4].map(() => insertEvents(3)))).flat();
      const r = await dispatched(ids);
      expect(r.filter((x) => x.dispatched_at === null)).toEqual([]);
      expect(r.map((x) => x.dispatch_attempts)).toEqual(ids.map(() => 1));
      // it heard them too (whether it or the first replica claimed each row is SKIP LOCKED's call)
      expect((await metrics.registry.getSingleMetric('pg_notify_wakeups_total')!.get()).values[0]?.value).toBeGreaterThan(0);
      for (const id of ids) await h.receiver.waitFor((w) => w.body.id === id);
    } finally {
      await second.onApplicationShutdown();
      await ds.destroy();
    }
  }, 30_000);
});
