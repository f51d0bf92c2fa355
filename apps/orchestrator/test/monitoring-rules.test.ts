import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { MetricsService, bullOptions } from '@mm/platform';
import { QUEUES } from '@mm/contracts';
import { MonitoringFeed } from '../src/monitoring/feed/monitoring-feed.service';
import { MonitoringWorker } from '../src/monitoring/feed/monitoring.worker';
import { PassThroughRule } from '../src/monitoring/rules/pass-through.rule';
import { RULE_CODES } from '../src/monitoring/rules/monitoring-rule';
import { OrchestratorConfig } from '../src/orchestrator.config';
import { OrchestratorHarness } from './pricing-harness';
import type { TransactionCompletedEvent } from '@mm/contracts';
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
      const result = await feed.ingest(events, 'batch-broken-rule');
      expect(result).toMatchObject({ stored: 3, alerts: 1, ruleFailures: 3 });
      expect(await rulesOf(payer.userId)).toEqual(['STRUCTURING']);
      // one row for the rule and the batch, counting its three failures
      const failures = (
        await h.sql.query(
          `SELECT rule, event_id, config_version, error, occurrences, batch_id FROM orchestrator.monitoring_rule_failures
            WHERE batch_id = 'batch-broken-rule'`,
        )
      ).rows;
      expect(failures).toEqual([
        {
          rule: 'PASS_THROUGH',
          event_id: events[0].eventId,
          config_version: 1,
          error: 'pass-through rule broken for this test',
          occurrences: 3,
          batch_id: 'batch-broken-rule',
        },
      ]);
      const metric = await h.get(MetricsService).registry.getSingleMetric('monitoring_rule_failures_total')!.get();
      expect(metric.values.find((v) => v.labels.rule === 'PASS_THROUGH')?.value).toBeGreaterThanOrEqual(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('refused events are kept with their reason, once each; the rest of the batch is stored', async () => {
    const [a, b] = await createPersons(h.sql, 2, 'CUSTOMER');
    const good = completed('TRANSFER', a, b, 1_000, now - HOUR);
    const badAmount = { ...good, eventId: randomUUID(), amount: -5 };
    const badType = { ...good, eventId: randomUUID(), intentType: 'BILL_PAYMENT' };
    const batch = [badAmount, badType, { nonsense: true }, good];
    expect(await feed.ingest(batch, 'batch-with-rejects')).toMatchObject({ stored: 1, invalid: 3 });
    expect(await feed.ingest(batch, 'batch-with-rejects')).toMatchObject({ stored: 0, duplicates: 1, invalid: 3 });
    const kept = (
      await h.sql.query(
        `SELECT reason, event_id, batch_id, event FROM orchestrator.monitoring_feed_rejects WHERE batch_id = 'batch-with-rejects' ORDER BY id`,
      )
    ).rows;
    expect(kept).toEqual([
      { reason: 'INVALID_AMOUNT', event_id: badAmount.eventId, batch_id: 'batch-with-rejects', event: badAmount },
      { reason: 'UNKNOWN_INTENT_TYPE', event_id: badType.eventId, batch_id: 'batch-with-rejects', event: badType },
      { reason: 'NOT_TRANSACTION_COMPLETED', event_id: null, batch_id: 'batch-with-rejects', event: { nonsense: true } },
    ]);
    await expect(h.sql.query(`DELETE FROM orchestrator.monitoring_feed_rejects`)).rejects.toThrow(/append-only/);
  });

  it('batches run at once or out of order: every mule that sent on what it received is alerted, exactly once', async () => {
    const mules = async (n: number) => {
      const senders = await createPersons(h.sql, n, 'CUSTOMER');
      const list = await createPersons(h.sql, n, 'CUSTOMER');
      const [onward] = await createPersons(h.sql, 1, 'CUSTOMER');
      const received = list.map((m, i) => completed('TRANSFER', senders[i], m, 300_000, now - 50 * MINUTE + i * 1_000));
      const sentOn = list.map((m, i) => completed('TRANSFER', m, onward, 290_000, now - 40 * MINUTE + i * 1_000));
      return { list, received, sentOn };
    };
    const passThroughOf = async (list: Person[]) =>
      (
        await h.sql.query(
          `SELECT subject_user_id, count(*)::int AS n FROM orchestrator.monitoring_alerts
            WHERE rule = 'PASS_THROUGH' AND subject_user_id = ANY($1::uuid[]) GROUP BY subject_user_id`,
          [list.map((m) => m.userId)],
        )
      ).rows;

    // two replicas, one batch each: the mules receive in one, send on in the other
    const together = await mules(20);
    await Promise.all([feed.ingest(together.received), feed.ingest(together.sentOn)]);
    expect(await passThroughOf(together.list)).toEqual(
      expect.arrayContaining(together.list.map((m) => ({ subject_user_id: m.userId, n: 1 }))),
    );
    expect(await passThroughOf(together.list)).toHaveLength(20);

    // a retried job: the later batch is stored first
    const late = await mules(5);
    expect(await feed.ingest(late.sentOn)).toMatchObject({ stored: 5, alerts: 0 });
    expect(await feed.ingest(late.received)).toMatchObject({ stored: 5, alerts: 5 });
    expect(await passThroughOf(late.list)).toHaveLength(5);

    // structuring's three operations split over two batches at once, then everything delivered again
    const [payer, payee] = await createPersons(h.sql, 2, 'CUSTOMER');
    const near = [0, 1, 2].map((i) => completed('TRANSFER', payer, payee, 950_000, now - (3 - i) * HOUR));
    await Promise.all([feed.ingest([near[0], near[2]]), feed.ingest([near[1]])]);
    expect(await rulesOf(payer.userId)).toEqual(['STRUCTURING']);
    const again = await Promise.all([feed.ingest([...together.received, ...late.sentOn]), feed.ingest([...together.sentOn, ...near])]);
    expect(again.map((r) => r.alerts)).toEqual([0, 0]);
    expect(await passThroughOf([...together.list, ...late.list])).toHaveLength(25);
  });

  it('a case closed before an operation does not cover its hit; one closed after it does', async () => {
    const [payer, payee] = await createPersons(h.sql, 2, 'CUSTOMER');
    const near = (minutesAgo: number) => completed('TRANSFER', payer, payee, 950_000, now - minutesAgo * MINUTE);
    await feed.ingest([near(300), near(240), near(180)]);
    expect(await rulesOf(payer.userId)).toEqual(['STRUCTURING']);
    // the officer closed the case 150 minutes ago
    await h.sql.query(
      `UPDATE orchestrator.monitoring_cases SET status = 'CLOSED', decision = 'NO_ACTION', decision_note = 'salary advances, explained',
              decided_by = gen_random_uuid(), decided_at = now() - interval '150 minutes'
        WHERE subject_user_id = $1`,
      [payer.userId],
    );
    // an operation from before that decision, delivered late: the decision covered its window
    expect(await feed.ingest([near(160)])).toMatchObject({ stored: 1, alerts: 0 });
    // one after it: a new alert, in a new case; the next one joins that alert's window
    expect(await feed.ingest([near(140)])).toMatchObject({ stored: 1, alerts: 1 });
    expect(await feed.ingest([near(130)])).toMatchObject({ stored: 1, alerts: 0 });
    expect((await alertsOf(payer.userId)).map((a) => [a.rule, a.case_status])).toEqual([
      ['STRUCTURING', 'CLOSED'],
      ['STRUCTURING', 'OPEN'],
    ]);
  });

  it('an alert behind more than 200 operations names 200, the trigger among them, and says how many there were', async () => {
    const [collector] = await createPersons(h.sql, 1, 'CUSTOMER');
    const payers = await createPersons(h.sql, 15, 'CUSTOMER');
    // 14 payers, 15 transfers each: not a fan-in yet
    await feed.ingest(
      payers
        .slice(0, 14)
        .flatMap((p, i) =>
          Array.from({ length: 15 }, (_, k) => completed('TRANSFER', p, collector, 1_000, now - 10 * HOUR + (i * 15 + k) * 10_000)),
        ),
    );
    const trigger = completed('TRANSFER', payers[14], collector, 1_000, now - 2 * HOUR);
    expect(await feed.ingest([trigger])).toMatchObject({ alerts: 1 });
    const [alert] = (
      await h.sql.query(
        `SELECT operations_total, truncated, transaction_ids, trigger_event_id FROM orchestrator.monitoring_alerts WHERE subject_user_id = $1`,
        [collector.userId],
      )
    ).rows;
    expect(alert).toMatchObject({ operations_total: 211, truncated: true, trigger_event_id: trigger.eventId });
    expect(alert.transaction_ids).toHaveLength(200);
    expect(alert.transaction_ids).toContain(trigger.transactionId);
  });

  it('a batch that used up its attempts is kept as a dead letter, and the replay stores it once', async () => {
    const [a, b] = await createPersons(h.sql, 2, 'CUSTOMER');
    const event = completed('TRANSFER', a, b, 2_500, now - 20 * MINUTE);
    const queue = new Queue(QUEUES.monitoringEvents, bullOptions(h.get(OrchestratorConfig)));
    const spy = jest.spyOn(feed, 'ingest').mockRejectedValueOnce(new Error('database unreachable for this test'));
    try {
      await queue.add('ledger-events.batch', { events: [event] }, { jobId: 'batch-dead-letter-test', attempts: 1 });
      let letters: Array<Record<string, unknown>> = [];
      for (const deadline = Date.now() + 10_000; letters.length === 0 && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 50));
        letters = (await h.sql.query(`SELECT * FROM orchestrator.monitoring_dead_letters WHERE job_id = 'batch-dead-letter-test'`)).rows;
      }
      expect(letters).toEqual([
        expect.objectContaining({ events: [event], attempts: 1, error: 'database unreachable for this test', replayed_at: null }),
      ]);
    } finally {
      spy.mockRestore();
      await queue.close();
    }
    const worker = h.get(MonitoringWorker);
    expect(await worker.replayDeadLetters()).toEqual({ replayed: 1, failed: 0 });
    expect(await worker.replayDeadLetters()).toEqual({ replayed: 0, failed: 0 });
    const stored = await h.sql.query(`SELECT count(*)::int AS n FROM orchestrator.monitored_operations WHERE event_id = $1`, [
      event.eventId,
    ]);
    expect(stored.rows[0].n).toBe(1);
    const [letter] = (
      await h.sql.query(
        `SELECT replay_result, replay_attempts FROM orchestrator.monitoring_dead_letters WHERE job_id = 'batch-dead-letter-test'`,
      )
    ).rows;
    expect(letter).toEqual({ replay_result: { stored: 1, duplicates: 0, invalid: 0, alerts: 0 }, replay_attempts: 1 });
    await expect(
      h.sql.query(`UPDATE orchestrator.monitoring_dead_letters SET replay_error = 'x' WHERE job_id = 'batch-dead-letter-test'`),
    ).rejects.toThrow(/never changes/);
  });

  it('stays silent on a generated normal day near every threshold, each rule judging; a busy merchant is not read for a batch', async () => {
    const day = await generateNormalDay();
    let stored = 0;
    let failures = 0;
    const evaluations = Object.fromEntries(RULE_CODES.map((code) => [code, 0]));
    for (let i = 0; i < day.events.length; i += 100) {
      const result = await feed.ingest(day.events.slice(i, i + 100));
      stored += result.stored;
      failures += result.ruleFailures;
      for (const code of RULE_CODES) evaluations[code] += result.evaluations[code];
    }
    expect(stored).toBe(day.events.length);
    expect(failures).toBe(0);
    const raised = await h.sql.query(`SELECT rule, reason FROM orchestrator.monitoring_alerts WHERE subject_user_id = ANY($1::uuid[])`, [
      day.everyone,
    ]);
    expect(raised.rows).toEqual([]);
    // every rule had real candidates to judge, not only operations it ignores
    for (const code of RULE_CODES) expect([code, evaluations[code]]).toEqual([code, expect.any(Number)]);
    expect(Math.min(...Object.values(evaluations))).toBeGreaterThanOrEqual(8);

    // one more payment to the supermarket (1 500 payments today): its takings are not read, no rule needs them
    const [shopper] = day.customers;
    const result = await feed.ingest([completed('TRANSFER', shopper, day.supermarket, 7_500, now - 30 * MINUTE)]);
    expect(result).toMatchObject({ stored: 1, alerts: 0 });
    expect(result.rowsRead).toBeLessThan(60);
  }, 60_000);

  /**
   * A day of about 4 000 operations where each rule comes close to its threshold (version 1) without
   * reaching it: salaries and rents near the reporting threshold, money received and partly sent on
   * within the hour, customers back after 60 to 89 days, an agent's busy hour at 80 % of both limits,
   * traders cashing in and out twice, a savings collector paid by 12 members, a supermarket's 1 500
   * payments and an electronics shop's large ones.
   */
  async function generateNormalDay() {
    const random = seeded(29);
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
    const amount = (min: number, max: number) => Math.round((min + random() * (max - min)) / 100) * 100;
    // one client: the statements one after the other
    const customers = await createPersons(h.sql, 300, 'CUSTOMER', 30);
    const agents = await createPersons(h.sql, 10, 'AGENT', 30);
    const merchants = await createPersons(h.sql, 6, 'MERCHANT', 30);
    const employees = await createPersons(h.sql, 30, 'CUSTOMER', 30);
    const returning = await createPersons(h.sql, 15, 'CUSTOMER', 200);
    const oldFriends = await createPersons(h.sql, 15, 'CUSTOMER', 200);
    const traders = await createPersons(h.sql, 5, 'CUSTOMER', 30);
    const members = await createPersons(h.sql, 12, 'CUSTOMER', 30);
    const [collector] = await createPersons(h.sql, 1, 'CUSTOMER', 30);
    const [supermarket, electronics, employer, landlord, ...shops] = merchants;
    const start = now - 13 * HOUR;
    const at = () => start + Math.floor(random() * 12 * HOUR);
    const events: TransactionCompletedEvent[] = [];

    // the returning customers' last operations, 60 to 89 days ago (stored before the day)
    const before = returning.map((c, i) => completed('TRANSFER', c, oldFriends[i], amount(2_000, 20_000), now - (60 + 2 * i) * DAY));

    // everyday traffic: people pay the same few contacts, shops and agents
    const contacts = new Map(customers.map((c) => [c.userId, [0, 1, 2, 3].map(() => pick(customers)).filter((x) => x !== c)]));
    for (let i = 0; i < 1_400; i++) {
      const c = pick(customers);
      const to = contacts.get(c.userId)!;
      events.push(completed('TRANSFER', c, to.length ? pick(to) : pick(customers), amount(500, 30_000), at()));
    }
    for (let i = 0; i < 1_500; i++) events.push(completed('TRANSFER', pick(customers), supermarket, amount(500, 60_000), at()));
    for (let i = 0; i < 60; i++) events.push(completed('TRANSFER', pick(customers), electronics, amount(100_000, 800_000), at()));
    for (let i = 0; i < 200; i++) events.push(completed('TRANSFER', pick(customers), pick(shops), amount(500, 20_000), at()));
    for (let i = 0; i < 600; i++) {
      const c = pick(customers);
      const agent = pick(agents.slice(1));
      events.push(
        random() < 0.5
          ? completed('CASH_IN', agent, c, amount(1_000, 50_000), at())
          : completed('CASH_OUT', c, agent, amount(1_000, 50_000), at()),
      );
    }
    // salaries (two at 950 000: the employer's two near-threshold payments, one short of structuring), each
    // employee sending on 55-65 % of it within the hour (pass-through starts at 80 %)
    employees.forEach((e, i) => {
      const when = start + 2 * HOUR + i * MINUTE;
      const salary = i < 2 ? 950_000 : amount(250_000, 850_000);
      events.push(completed('TRANSFER', employer, e, salary, when));
      events.push(completed('TRANSFER', e, landlord, Math.round((salary * (0.45 + random() * 0.1)) / 100) * 100, when + 20 * MINUTE));
      events.push(completed('TRANSFER', e, pick(customers), Math.round((salary * 0.1) / 100) * 100, when + 40 * MINUTE));
    });
    // three tenants each pay rent and school fees near the threshold: two near-threshold payments each
    for (const tenant of customers.slice(1, 4)) {
      events.push(completed('TRANSFER', tenant, landlord, 960_000, at()));
      events.push(completed('TRANSFER', tenant, pick(shops), 910_000, at()));
    }
    // back after 60 to 89 days with 100 000 to 300 000, sent or received
    returning.forEach((c, i) =>
      events.push(
        i % 2
          ? completed('TRANSFER', c, pick(customers), amount(100_000, 300_000), at())
          : completed('TRANSFER', pick(customers), c, amount(100_000, 300_000), at()),
      ),
    );
    // an agent's busy hour: 80 cash-ins of 50 000 (80 % of 100 operations and of 5 000 000)
    for (let i = 0; i < 80; i++) events.push(completed('CASH_IN', agents[0], pick(customers), 50_000, start + 5 * HOUR + i * 40_000));
    // market traders: cash in in the morning, out in the afternoon, twice (cycling starts at three)
    for (const trader of traders) {
      for (const k of [0, 1]) {
        events.push(completed('CASH_IN', agents[1], trader, amount(20_000, 80_000), start + k * 5 * HOUR));
        events.push(completed('CASH_OUT', trader, agents[1], amount(20_000, 80_000), start + k * 5 * HOUR + 3 * HOUR));
      }
    }
    // a savings collector paid by 12 members (fan-in starts at 15 distinct payers)
    for (const m of members) events.push(completed('TRANSFER', m, collector, amount(5_000, 25_000), at()));

    await feed.ingest(before);
    events.sort((x, y) => Date.parse(x.occurredAt) - Date.parse(y.occurredAt));
    const everyone = [customers, agents, merchants, employees, returning, oldFriends, traders, members, [collector]]
      .flat()
      .map((p: Person) => p.userId);
    return { events, everyone, customers, supermarket };
  }
});
