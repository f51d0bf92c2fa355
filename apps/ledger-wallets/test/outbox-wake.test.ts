import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { QUEUES } from '@mm/contracts';
import { ALWAYS_LEADER, MAX_INTERVAL_MS, MetricsService, PostgresJobLease, bullOptions } from '@mm/platform';
import { LedgerDb } from '../src/db/ledger-db.service';
import { LEDGER_OUTBOX_CHANNEL, OutboxRelay } from '../src/outbox/outbox-relay.service';
import { type Harness, fundedAccount, startLedger, transfer } from './ledger-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(done: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await done()) return true;
    await sleep(20);
  }
  return done();
}

/**
 * The relay is woken by the outbox's insert trigger (a NOTIFY delivered on commit) instead of
 * waiting for its poll. The relays here poll every MAX_INTERVAL_MS (24.8 days, boundaries on
 * multiples of it since the epoch): only a wake-up can publish a row during the test. The app's own
 * relay is off (LEDGER_OUTBOX_POLL_MS=0); the rows are the app's real outbox rows, or rows written
 * straight into `ledger.outbox`.
 */
describe('ledger outbox relay: woken by the commit', () => {
  let h: Harness;
  let queue: Queue;
  const relays: OutboxRelay[] = [];
  const leases: PostgresJobLease[] = [];

  beforeAll(async () => {
    Logger.overrideLogger(false);
    h = await startLedger();
    queue = new Queue(QUEUES.ledgerEvents, bullOptions(h.app.config));
  }, 30_000);

  afterAll(async () => {
    for (const relay of relays) await relay.onApplicationShutdown();
    for (const lease of leases) await lease.close();
    await queue?.close();
    await h?.close();
  });

  const relay = (pollMs: number, lease = ALWAYS_LEADER, metrics = new MetricsService()) => {
    const r = new OutboxRelay(
      h.app.app.get(LedgerDb),
      { ...h.app.config, LEDGER_OUTBOX_POLL_MS: pollMs, LEDGER_MONITORING_POLL_MS: 0 } as never,
      metrics,
      lease,
    );
    relays.push(r);
    return r;
  };
  const pending = async (ids?: string[]) =>
    Number(
      (
        await h.admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM ledger.outbox WHERE published_at IS NULL AND ($1::uuid[] IS NULL OR id = ANY($1::uuid[]))`,
          [ids ?? null],
        )
      ).rows[0].n,
    );
  const metric = async (m: MetricsService, name: string) => (await m.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
  /** How many times each event id was handed to `ledger-events` (nothing consumes the queue here). */
  const handedOver = async () => {
    const counts = new Map<string, number>();
    for (const job of await queue.getJobs(['waiting', 'completed', 'active', 'delayed', 'prioritized'])) {
      const data = job.data as { events?: Array<{ eventId?: string }>; eventId?: string };
      for (const e of data.events ?? [data]) if (e.eventId) counts.set(e.eventId, (counts.get(e.eventId) ?? 0) + 1);
    }
    return counts;
  };
  /** `n` rows written by the test itself, one INSERT each, in one transaction. */
  const insertRows = async (client: Client, n: number, commit = true) => {
    const ids = Array.from({ length: n }, () => randomUUID());
    await client.query('BEGIN');
    for (const id of ids) {
      await client.query(`INSERT INTO ledger.outbox (id, event_type, aggregate_id, payload) VALUES ($1, 'test.wake', $1, $2)`, [
        id,
        { type: 'test.wake', eventId: id },
      ]);
    }
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return ids;
  };

  it('a committed payment is published by the wake-up, with no poll due; a rolled-back insert wakes nobody', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const metrics = new MetricsService();
    const r = relay(MAX_INTERVAL_MS, ALWAYS_LEADER, metrics);
    r.onApplicationBootstrap();
    expect(await r.wakeReady()).toBe(true);
    // The pass run on connecting (rows committed before anyone listened) takes the funding rows.
    expect(await waitFor(async () => (await pending()) === 0)).toBe(true);
    const published = await metric(metrics, 'ledger_outbox_published_total');

    expect((await transfer(h, a, b, 100)).status).toBe(200);
    expect(await waitFor(async () => (await pending()) === 0)).toBe(true);
    expect(await metric(metrics, 'ledger_outbox_published_total')).toBeGreaterThan(published);

    // A raw listener beside the relay: one notification per committing transaction, none for a rollback.
    const listener = new Client({ connectionString: h.db.adminUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query(`LISTEN ${LEDGER_OUTBOX_CHANNEL}`);
    const writer = new Client({ connectionString: h.db.adminUrl });
    await writer.connect();
    try {
      const wakeups = await metric(metrics, 'pg_notify_wakeups_total');
      const rolledBack = await insertRows(writer, 3, false);
      const committed = await insertRows(writer, 3);
      expect(await waitFor(async () => (await pending(committed)) === 0)).toBe(true);
      // Notifications come in commit order: the committed one has arrived, so a rolled-back one would have too.
      expect(heard).toEqual([LEDGER_OUTBOX_CHANNEL]);
      expect(await metric(metrics, 'pg_notify_wakeups_total')).toBe(wakeups + 1);
      const counts = await handedOver();
      for (const id of committed) expect(counts.get(id)).toBe(1);
      for (const id of rolledBack) expect(counts.has(id)).toBe(false);
    } finally {
      await writer.end();
      await listener.end();
      await r.onApplicationShutdown();
    }
  }, 30_000);

  it('a LISTEN connection cut by the server comes back: commits after it are still published by a wake-up', async () => {
    const metrics = new MetricsService();
    const r = relay(MAX_INTERVAL_MS, ALWAYS_LEADER, metrics);
    r.onApplicationBootstrap();
    const writer = new Client({ connectionString: h.db.adminUrl });
    await writer.connect();
    try {
      expect(await r.wakeReady()).toBe(true);
      const cut = await h.admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ledger-wallets outbox wake'`,
      );
      expect(cut.rowCount).toBe(1);
      // a row committed while nobody listens: the pass run on reconnecting takes it
      const during = await insertRows(writer, 1);
      expect(await waitFor(async () => (await pending(during)) === 0)).toBe(true);
      expect(await r.wakeReady()).toBe(true);
      const wakeups = await metric(metrics, 'pg_notify_wakeups_total');
      const after = await insertRows(writer, 1);
      expect(await waitFor(async () => (await pending(after)) === 0)).toBe(true);
      expect(await metric(metrics, 'pg_notify_wakeups_total')).toBe(wakeups + 1);
    } finally {
      await writer.end();
      await r.onApplicationShutdown();
    }
  }, 30_000);

  it('two relays on their own leases, woken by every commit: each row is published once, by the leader only', async () => {
    // A real lease per relay, as two replicas have. A wake-up runs on a leader that has held the
    // lease since before the current slot: short slots, so the leader is settled within the test.
    const everyMs = 300;
    const metrics = [new MetricsService(), new MetricsService()];
    const pair = metrics.map((m) => {
      const lease = new PostgresJobLease({ service: 'ledger-wallets', databaseUrl: h.app.config.DATABASE_URL });
      leases.push(lease);
      return relay(everyMs, lease, m);
    });
    for (const r of pair) r.onApplicationBootstrap();
    for (const r of pair) expect(await r.wakeReady()).toBe(true);
    await sleep(3 * everyMs);
    expect(await waitFor(async () => (await pending()) === 0)).toBe(true);

    const writers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = new Client({ connectionString: h.db.adminUrl });
        await c.connect();
        return c;
      }),
    );
    try {
      const before = await Promise.all(metrics.map((m) => metric(m, 'ledger_outbox_published_total')));
      // 4 writers × 10 transactions × 2 rows, committing concurrently while the relays run.
      const perWriter = await Promise.all(
        writers.map(async (w) => {
          const mine: string[] = [];
          for (let i = 0; i < 10; i++) mine.push(...(await insertRows(w, 2)));
          return mine;
        }),
      );
      const ids = perWriter.flat();
      expect(await waitFor(async () => (await pending(ids)) === 0)).toBe(true);
      const counts = await handedOver();
      for (const id of ids) expect(counts.get(id)).toBe(1);
      const after = await Promise.all(metrics.map((m) => metric(m, 'ledger_outbox_published_total')));
      const byRelay = after.map((n, i) => n - before[i]);
      expect(byRelay.sort((x, y) => x - y)).toEqual([0, ids.length]);
      // both heard the commits; only the leader acted on them
      for (const m of metrics) expect(await metric(m, 'pg_notify_wakeups_total')).toBeGreaterThan(0);
    } finally {
      for (const w of writers) await w.end();
    }
  }, 30_000);
});
