import { MetricsService } from '@mm/platform';
import type { TransactionCompletedEvent } from '@mm/contracts';
import { MonitoringFeed } from '../src/monitoring/feed/monitoring-feed.service';
import { MonitoringWorker } from '../src/monitoring/feed/monitoring.worker';
import { PassThroughRule } from '../src/monitoring/rules/pass-through.rule';
import { OrchestratorHarness } from './pricing-harness';
import { DAY, HOUR, MINUTE, type Person, completed, createPersons, seeded } from './monitoring-support';

/**
 * The monitoring rules on crafted sequences and on a generated normal day, fed straight into the
 * feed (what the worker calls for each job of `monitoring-events`): the real orchestrator, its real
 * database and the rules in force (version 1 of the monitoring section).
 */
describe('transaction monitoring rules', () => {
  const h = new OrchestratorHarness();
  let feed: MonitoringFeed;
  const now = Date.now();

  beforeAll(async () => {
    await h.start();
    feed = h.get(MonitoringFeed);
  });
  afterAll(() => h.stop());

  const alertsOf = async (userId: string) =>
    (
      await h.sql.query(
        `SELECT a.rule, a.scope, a.config_version, a.reason, a.figures, cardinality(a.transaction_ids) AS operations, c.status AS case_status
           FROM orchestrator.monitoring_alerts a JOIN orchestrator.monitoring_cases c ON c.id = a.case_id
          WHERE a.subject_user_id = $1 ORDER BY a.raised_at`,
        [userId],
      )
    ).rows;
  const rulesOf = async (userId: string) => (await alertsOf(userId)).map((a) => a.rule);

  it('STRUCTURING: a third transfer just under the reporting threshold within a day, together above it', async () => {
    const [payer, payee] = await createPersons(h.sql, 2, 'CUSTOMER');
    await feed.ingest([
      completed('TRANSFER', payer, payee, 950_000, now - 5 * HOUR),
      completed('TRANSFER', payer, payee, 960_000, now - 3 * HOUR),
    ]);
    expect(await rulesOf(payer.userId)).toEqual([]);
    await feed.ingest([completed('TRANSFER', payer, payee, 970_000, now - 1 * HOUR)]);
    const alerts = await alertsOf(payer.userId);
    expect(alerts).toEqual([
      expect.objectContaining({
        rule: 'STRUCTURING',
        config_version: 1,
        operations: 3,
        case_status: 'OPEN',
        figures: { operations: 3, total: 2_880_000, threshold: 1_000_000, nearFrom: 900_000 },
      }),
    ]);
    expect(alerts[0].reason).toContain('2 880 000 XAF in all');
    // an amount at the threshold or far under it is not structuring
    const [other, payee2] = await createPersons(h.sql, 2, 'CUSTOMER');
    await feed.ingest([0, 1, 2, 3].map((i) => completed('TRANSFER', other, payee2, i === 3 ? 1_000_000 : 400_000, now - (4 - i) * HOUR)));
    expect(await rulesOf(other.userId)).toEqual([]);
  });

  it('PASS_THROUGH: money received and 80 % of it sent on within the hour', async () => {
    const [sender, mule, onward] = await createPersons(h.sql, 3, 'CUSTOMER');
    await feed.ingest([
      completed('TRANSFER', sender, mule, 300_000, now - 50 * MINUTE),
      completed('TRANSFER', mule, onward, 200_000, now - 40 * MINUTE),
    ]);
    expect(await rulesOf(mule.userId)).toEqual([]); // 66 %
    await feed.ingest([completed('TRANSFER', mule, onward, 50_000, now - 30 * MINUTE)]);
    expect(await alertsOf(mule.userId)).toEqual([
      expect.objectContaining({
        rule: 'PASS_THROUGH',
        figures: { totalIn: 300_000, totalOut: 250_000, sharePercent: 83, operationsIn: 1, operationsOut: 2 },
      }),
    ]);
    expect(await rulesOf(sender.userId)).toEqual([]);
  });

  it('DORMANT_REACTIVATION: 120 days without an operation, then 150 000 XAF sent', async () => {
    const [sleeper, friend, other] = await createPersons(h.sql, 3, 'CUSTOMER', 400);
    await feed.ingest([
      completed('TRANSFER', sleeper, friend, 2_000, now - 120 * DAY),
      completed('TRANSFER', other, friend, 2_000, now - 100 * DAY),
    ]);
    await feed.ingest([completed('TRANSFER', other, friend, 5_000, now - 2 * HOUR)]);
    await feed.ingest([completed('TRANSFER', sleeper, friend, 150_000, now - HOUR)]);
    expect(await alertsOf(sleeper.userId)).toEqual([
      expect.objectContaining({ rule: 'DORMANT_REACTIVATION', figures: expect.objectContaining({ quietDays: 119 }) }),
    ]);
    // friend was paid 2 hours before: not dormant; a small amount after a long silence is not an alert either
    expect(await rulesOf(friend.userId)).toEqual([]);
    expect(await rulesOf(other.userId)).toEqual([]);
  });

  it('AGENT_CYCLING: three cash-in / cash-out pairs between one agent and one customer in a day', async () => {
    const [agent] = await createPersons(h.sql, 1, 'AGENT');
    const [customer] = await createPersons(h.sql, 1, 'CUSTOMER');
    const pairs = (n: number, start: number) =>
      Array.from({ length: n }, (_, i) => [
        completed('CASH_IN', agent, customer, 40_000, start + i * HOUR),
        completed('CASH_OUT', customer, agent, 39_000, start + i * HOUR + 20 * MINUTE),
      ]).flat();
    await feed.ingest(pairs(2, now - 10 * HOUR));
    expect(await rulesOf(agent.userId)).toEqual([]);
    await feed.ingest(pairs(1, now - 5 * HOUR));
    const alerts = await alertsOf(agent.userId);
    expect(alerts).toEqual([expect.objectContaining({ rule: 'AGENT_CYCLING', scope: customer.userId, operations: 6 })]);
    expect(alerts[0].figures).toMatchObject({ cycles: 3, cashIns: 3, cashOuts: 3 });
  });

  it('FAN_IN: 15 distinct payers to one customer in a day; a merchant paid by 20 is not judged', async () => {
    const [collector] = await createPersons(h.sql, 1, 'CUSTOMER');
    const [shop] = await createPersons(h.sql, 1, 'MERCHANT');
    const payers = await createPersons(h.sql, 20, 'CUSTOMER');
    await feed.ingest(payers.slice(0, 14).map((p, i) => completed('TRANSFER', p, collector, 3_000, now - 10 * HOUR + i * MINUTE)));
    expect(await rulesOf(collector.userId)).toEqual([]);
    await feed.ingest([completed('TRANSFER', payers[14], collector, 3_000, now - 5 * HOUR)]);
    expect(await alertsOf(collector.userId)).toEqual([
      expect.objectContaining({ rule: 'FAN_IN', figures: { distinctPayers: 15, transfers: 15, total: 45_000 } }),
    ]);
    await feed.ingest(payers.map((p, i) => completed('TRANSFER', p, shop, 3_000, now - 4 * HOUR + i * MINUTE)));
    expect(await rulesOf(shop.userId)).toEqual([]);
  });

  it('AGENT_VELOCITY: more than 5 000 000 XAF through one agent in an hour, and more than 100 operations', async () => {
    const [agent, busy] = await createPersons(h.sql, 2, 'AGENT');
    const customers = await createPersons(h.sql, 101, 'CUSTOMER');
    await feed.ingest(customers.slice(0, 3).map((c, i) => completed('CASH_IN', agent, c, 1_600_000, now - 3 * HOUR + i * MINUTE)));
    expect(await rulesOf(agent.userId)).toEqual([]); // 4 800 000
    await feed.ingest([completed('CASH_IN', agent, customers[3], 300_000, now - 3 * HOUR + 10 * MINUTE)]);
    expect(await alertsOf(agent.userId)).toEqual([
      expect.objectContaining({ rule: 'AGENT_VELOCITY', figures: expect.objectContaining({ total: 5_100_000 }) }),
    ]);

    await feed.ingest(customers.slice(0, 100).map((c, i) => completed('CASH_IN', busy, c, 1_000, now - 2 * HOUR + i * 20_000)));
    expect(await rulesOf(busy.userId)).toEqual([]);
    await feed.ingest([completed('CASH_OUT', customers[100], busy, 1_000, now - 2 * HOUR + 101 * 20_000)]);
    expect(await alertsOf(busy.userId)).toEqual([
      expect.objectContaining({ rule: 'AGENT_VELOCITY', figures: expect.objectContaining({ operations: 101 }) }),
    ]);
  });

  it('the same batch twice (and cut differently) stores each operation once and opens one alert; later hits of the same window join it', async () => {
    const [payer, payee] = await createPersons(h.sql, 2, 'CUSTOMER');
    const batch = [0, 1, 2].map((i) => completed('TRANSFER', payer, payee, 950_000, now - (3 - i) * HOUR));
    expect(await feed.ingest(batch)).toMatchObject({ stored: 3, duplicates: 0, alerts: 1 });
    expect(await feed.ingest(batch)).toMatchObject({ stored: 0, duplicates: 3, alerts: 0 });
    // two deliveries at once (two replicas, a stalled job): still one alert
    const again = await Promise.all([feed.ingest(batch.slice(1)), feed.ingest([...batch].reverse())]);
    expect(again.map((r) => r.alerts)).toEqual([0, 0]);
    // a fourth near-threshold transfer in the same window is covered by the alert already open
    await feed.ingest([completed('TRANSFER', payer, payee, 951_000, now - 30 * MINUTE)]);
    expect(await rulesOf(payer.userId)).toEqual(['STRUCTURING']);
    const stored = await h.sql.query(`SELECT count(*)::int AS n FROM orchestrator.monitored_operations WHERE event_id = ANY($1::uuid[])`, [
      batch.map((e) => e.eventId),
    ]);
    expect(stored.rows[0].n).toBe(3);
    // the worker reads the relay's job shape
    const job = { name: 'ledger-events.batch', data: { events: [completed('TRANSFER', payee, payer, 1_000, now - 10 * MINUTE)] } };
    expect(await h.get(MonitoringWorker).process(job)).toMatchObject({ stored: 1, invalid: 0 });
  });

  it('a rule that throws is recorded and counted; the other rules still raise their alerts and nothing is blocked', async () => {
    const spy = jest.spyOn(h.get(PassThroughRule), 'evaluate').mockImplementation(() => {
      throw new Error('pass-through rule broken for this test');
    });
    try {
      const [payer, payee] = await createPersons(h.sql, 2, 'CUSTOMER');
      const events = [0, 1, 2].map((i) => completed('TRANSFER', payer, payee, 990_000, now - (3 - i) * HOUR));
      const result = await feed.ingest(events);
      expect(result).toMatchObject({ stored: 3, alerts: 1, ruleFailures: 3 });
      expect(await rulesOf(payer.userId)).toEqual(['STRUCTURING']);
      const failures = (
        await h.sql.query(
          `SELECT rule, event_id, config_version, error FROM orchestrator.monitoring_rule_failures WHERE event_id = ANY($1::uuid[])`,
          [events.map((e) => e.eventId)],
        )
      ).rows;
      expect(failures).toHaveLength(3);
      expect(failures[0]).toMatchObject({ rule: 'PASS_THROUGH', config_version: 1, error: 'pass-through rule broken for this test' });
      const metric = await h.get(MetricsService).registry.getSingleMetric('monitoring_rule_failures_total')!.get();
      expect(metric.values.find((v) => v.labels.rule === 'PASS_THROUGH')?.value).toBeGreaterThanOrEqual(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('malformed events are skipped, the rest of the batch is stored', async () => {
    const [a, b] = await createPersons(h.sql, 2, 'CUSTOMER');
    const good = completed('TRANSFER', a, b, 1_000, now - HOUR);
    const result = await feed.ingest([{ ...good, amount: -5 }, { nonsense: true }, null, good]);
    expect(result).toMatchObject({ stored: 1, invalid: 3 });
  });

  it('stays silent on a generated normal day: 3 000 operations of 300 customers, 10 agents and 5 merchants', async () => {
    const random = seeded(29);
    const customers = await createPersons(h.sql, 300, 'CUSTOMER', 30);
    const agents = await createPersons(h.sql, 10, 'AGENT', 30);
    const merchants = await createPersons(h.sql, 5, 'MERCHANT', 30);
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
    const amount = (min: number, max: number) => Math.round((min + random() * (max - min)) / 100) * 100;
    // people send money to the same few contacts, as they do
    const contacts = new Map(customers.map((c) => [c.userId, [0, 1, 2, 3].map(() => pick(customers)).filter((x) => x !== c)]));
    const start = now - 13 * HOUR;
    const events: TransactionCompletedEvent[] = [];
    for (let i = 0; i < 3_000; i++) {
      const at = start + Math.floor(random() * 12 * HOUR);
      const customer = pick(customers);
      const r = random();
      if (r < 0.5)
        events.push(
          completed(
            'TRANSFER',
            customer,
            pick(contacts.get(customer.userId)!.length ? contacts.get(customer.userId)! : customers),
            amount(500, 30_000),
            at,
          ),
        );
      else if (r < 0.75) events.push(completed('TRANSFER', customer, pick(merchants), amount(500, 20_000), at));
      else if (r < 0.875) events.push(completed('CASH_IN', pick(agents), customer, amount(1_000, 50_000), at));
      else events.push(completed('CASH_OUT', customer, pick(agents), amount(1_000, 50_000), at));
    }
    events.sort((x, y) => Date.parse(x.occurredAt) - Date.parse(y.occurredAt));
    let stored = 0;
    let failures = 0;
    for (let i = 0; i < events.length; i += 100) {
      const result = await feed.ingest(events.slice(i, i + 100));
      stored += result.stored;
      failures += result.ruleFailures;
    }
    expect(stored).toBe(3_000);
    expect(failures).toBe(0);
    const everyone = [...customers, ...agents, ...merchants].map((p: Person) => p.userId);
    const raised = await h.sql.query(`SELECT rule, reason FROM orchestrator.monitoring_alerts WHERE subject_user_id = ANY($1::uuid[])`, [
      everyone,
    ]);
    expect(raised.rows).toEqual([]);
  }, 60_000);
});
