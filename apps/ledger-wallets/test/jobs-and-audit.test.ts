import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { LEDGER_EVENT_BATCH_JOB, type LedgerEventBatch, QUEUES } from '@mm/contracts';
import { MetricsService, bullOptions } from '@mm/platform';
import { LedgerDb } from '../src/db/ledger-db.service';
import { ExpirySweeper } from '../src/intents/expiry-sweeper.service';
import { OutboxRelay, batchJobId } from '../src/outbox/outbox-relay.service';
import { type OperatorSigner, TEST_CHECKER, TEST_MAKER, bearer, startOperatorSigner } from '../../../test/support/funding';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type Harness, balanceOf, fundedAccount, intentBody, invariants, startLedger, transfer } from './ledger-harness';

describe('ledger: expiry sweeper, outbox relay, integrity job, audit, test funding', () => {
  let h: Harness;
  let alerts: { body: any; headers: Record<string, unknown> }[];
  let receiver: Server;
  let queue: Queue;
  let operators: OperatorSigner;

  beforeAll(async () => {
    operators = await startOperatorSigner();
    alerts = [];
    receiver = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        alerts.push({ body: JSON.parse(data), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    h = await startLedger({
      LEDGER_INTENT_TTL_SECONDS: '1',
      LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '250',
      LEDGER_OUTBOX_POLL_MS: '100',
      LEDGER_INTEGRITY_ALERT_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/compliance`,
      LEDGER_CONSENT_JWKS_URL: operators.jwksUrl,
    });
    operators.alsoServe(h.consent.jwksUrl);
    queue = new Queue(QUEUES.ledgerEvents, bullOptions(h.app.config));
  });
  afterAll(async () => {
    await queue.close();
    await h.close();
    await operators.close();
    await new Promise((r) => receiver.close(r));
  });

  /** The batch job that carries the event of outbox row `id` (the relay adds one job per batch). */
  const jobOfEvent = async (id: string) => {
    const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed']);
    return jobs.find((j) => j.name === LEDGER_EVENT_BATCH_JOB && (j.data as LedgerEventBatch).events.some((e) => e.eventId === id));
  };

  const waitFor = async <T>(fn: () => Promise<T | undefined>, ms = 5_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('expires stale intents on its timer, releases the hold and writes the event; a late move is refused', async () => {
    const a = await fundedAccount(h, 1_000);
    const b = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 300, { qrToken: 'qr-expiring' }));
    expect(await balanceOf(h, a)).toMatchObject({ availableBalance: 700, frozenBalance: 300 });
    const id = created.body.intentId;
    const expired = await waitFor(async () => {
      const res = await h.call('GET', `/v1/internal/intents/${id}`);
      return res.body.status === 'EXPIRED' ? res.body : undefined;
    });
    expect(expired.failureReason).toBe('lifetime exceeded');
    expect(await balanceOf(h, a)).toMatchObject({ balance: 1_000, availableBalance: 1_000, frozenBalance: 0 });
    const events = await h.call('GET', `/v1/internal/intents/${id}/events`);
    expect(events.body.at(-1)).toMatchObject({
      fromStatus: 'CREATED',
      toStatus: 'EXPIRED',
      event: 'intent_expired',
      actorId: 'system:expiry-sweeper',
    });
    const late = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'u' } });
    expect(late.body.code).toBe('INVALID_INTENT_TRANSITION');
    // The QR is free again once its intent ended.
    expect((await h.call('POST', '/v1/internal/intents', intentBody(a, b, 10, { qrToken: 'qr-expiring' }))).status).toBe(201);
  });

  it('refuses a forward move on an intent past its lifetime that the sweeper has not reached yet', async () => {
    const a = await fundedAccount(h, 100);
    const b = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(a, b, 10));
    await h.admin.query(`UPDATE ledger.transaction_intents SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      created.body.intentId,
    ]);
    const res = await h.call('POST', `/v1/internal/intents/${created.body.intentId}/transition`, {
      toStatus: 'PIN_VERIFIED',
      actor: { id: 'u' },
    });
    expect(res.status).toBe(400);
    expect(['INTENT_EXPIRED', 'INVALID_INTENT_TRANSITION']).toContain(res.body.code);
    const swept = await h.app.app.get(ExpirySweeper).sweep();
    expect(swept).toBeGreaterThanOrEqual(0);
    expect((await h.call('GET', `/v1/internal/intents/${created.body.intentId}`)).body.status).toBe('EXPIRED');
  });

  it('publishes transaction.completed in a batch job whose id is derived from its row ids, and marks the row', async () => {
    const a = await fundedAccount(h, 500);
    const b = await fundedAccount(h, 0);
    const done = await transfer(h, a, b, 200);
    expect(done.status).toBe(200);
    const row = await waitFor(async () => {
      const r = await h.admin.query(`SELECT id, published_at FROM ledger.outbox WHERE aggregate_id = $1`, [done.body.transactionId]);
      return r.rows[0]?.published_at ? r.rows[0] : undefined;
    });
    const job = await jobOfEvent(row.id);
    expect(job?.name).toBe(LEDGER_EVENT_BATCH_JOB);
    const batch = job!.data as LedgerEventBatch;
    expect(job!.id).toBe(batchJobId(batch.events.map((e) => e.eventId)));
    expect(batch.events.find((e) => e.eventId === row.id)).toMatchObject({
      type: 'transaction.completed',
      eventId: row.id,
      transactionId: done.body.transactionId,
      referenceId: done.body.referenceId,
      amount: 200,
      currency: 'XAF',
    });
  });

  it('publishes a backlog as one job per LEDGER_OUTBOX_BATCH_SIZE rows, in outbox order, every row marked once', async () => {
    // The app's relay must not take these rows (and stays stopped: the next test stops it too).
    await h.app.app.get(OutboxRelay).onApplicationShutdown();
    const relay = new OutboxRelay(
      h.app.app.get(LedgerDb),
      { ...h.app.config, LEDGER_OUTBOX_POLL_MS: 0, LEDGER_OUTBOX_BATCH_SIZE: 2 } as never,
      new MetricsService(),
    );
    try {
      await relay.tick(); // rows left by earlier tests
      const a = await fundedAccount(h, 500);
      const b = await fundedAccount(h, 0);
      const transactions: string[] = [];
      for (let i = 0; i < 5; i++) transactions.push((await transfer(h, a, b, 10 + i)).body.transactionId);
      const rows = (
        await h.admin.query(`SELECT id, aggregate_id FROM ledger.outbox WHERE published_at IS NULL ORDER BY created_at, id`)
      ).rows.filter((r) => transactions.includes(r.aggregate_id));
      expect(rows).toHaveLength(5);
      const before = await queue.getJobCounts('waiting');
      expect(await relay.tick()).toBeGreaterThanOrEqual(5);
      const jobs = await Promise.all(rows.map((r) => jobOfEvent(r.id)));
      // Five rows in batches of two: three jobs, each event in exactly one, the batches in row order.
      const ids = [...new Set(jobs.map((j) => j!.id))];
      expect(ids).toHaveLength(3);
      expect((await queue.getJobCounts('waiting')).waiting - before.waiting).toBe(3);
      const events = ids.flatMap((id) => (jobs.find((j) => j!.id === id)!.data as LedgerEventBatch).events.map((e) => e.eventId));
      expect(events).toEqual(rows.map((r) => r.id));
      const after = await h.admin.query(`SELECT published_at, attempts FROM ledger.outbox WHERE id = ANY($1::uuid[])`, [
        rows.map((r) => r.id),
      ]);
      expect(after.rows.every((r) => r.published_at !== null && r.attempts === 1)).toBe(true);
      // The same rows published again (a crash between the add and the mark): the same job id, no new job.
      await h.admin.query(`UPDATE ledger.outbox SET published_at = NULL WHERE id = ANY($1::uuid[])`, [rows.slice(0, 2).map((r) => r.id)]);
      expect(await relay.tick()).toBe(2);
      expect((await queue.getJobCounts('waiting')).waiting - before.waiting).toBe(3);
      // Rows of two batches re-published together: a new job, whose events the consumer sees twice.
      await h.admin.query(`UPDATE ledger.outbox SET published_at = NULL WHERE id = ANY($1::uuid[])`, [[rows[1].id, rows[2].id]]);
      expect(await relay.tick()).toBe(2);
      expect((await queue.getJobCounts('waiting')).waiting - before.waiting).toBe(4);
      const again = await queue.getJob(batchJobId([rows[1].id, rows[2].id]));
      expect((again?.data as LedgerEventBatch).events.map((e) => e.eventId)).toEqual([rows[1].id, rows[2].id]);
    } finally {
      await relay.onApplicationShutdown();
    }
  });

  it('with LEDGER_OUTBOX_BATCH_JOBS=false publishes each row as its own transaction.completed job, id = row id', async () => {
    await h.app.app.get(OutboxRelay).onApplicationShutdown();
    const relay = new OutboxRelay(
      h.app.app.get(LedgerDb),
      { ...h.app.config, LEDGER_OUTBOX_POLL_MS: 0, LEDGER_OUTBOX_BATCH_JOBS: false } as never,
      new MetricsService(),
    );
    try {
      await relay.tick();
      const a = await fundedAccount(h, 500);
      const b = await fundedAccount(h, 0);
      const done = await transfer(h, a, b, 25);
      expect(await relay.tick()).toBe(1);
      const row = (await h.admin.query(`SELECT id, published_at FROM ledger.outbox WHERE aggregate_id = $1`, [done.body.transactionId]))
        .rows[0];
      expect(row.published_at).not.toBeNull();
      const job = await queue.getJob(row.id);
      expect(job?.name).toBe('transaction.completed');
      expect(job?.data).toMatchObject({ eventId: row.id, transactionId: done.body.transactionId, amount: 25 });
    } finally {
      await relay.onApplicationShutdown();
    }
  });

  it('keeps rows pending while Redis is unreachable and publishes them once it is back', async () => {
    const relayDown = new OutboxRelay(
      h.app.app.get(LedgerDb),
      { ...h.app.config, REDIS_URL: 'redis://127.0.0.1:1', LEDGER_OUTBOX_POLL_MS: 0 } as never,
      new MetricsService(),
    );
    await h.app.app.get(OutboxRelay).onApplicationShutdown(); // stop the app's own relay for this test
    const a = await fundedAccount(h, 500);
    const b = await fundedAccount(h, 0);
    const done = await transfer(h, a, b, 100);
    expect(await relayDown.tick()).toBe(0);
    const pending = await h.admin.query(`SELECT id, published_at, attempts, last_error FROM ledger.outbox WHERE aggregate_id = $1`, [
      done.body.transactionId,
    ]);
    expect(pending.rows[0]).toMatchObject({ published_at: null });
    expect(pending.rows[0].attempts).toBeGreaterThanOrEqual(1);
    await relayDown.onApplicationShutdown();

    const relayUp = new OutboxRelay(h.app.app.get(LedgerDb), { ...h.app.config, LEDGER_OUTBOX_POLL_MS: 0 } as never, new MetricsService());
    expect(await relayUp.tick()).toBeGreaterThanOrEqual(1);
    await relayUp.onApplicationShutdown();
    const after = await h.admin.query(`SELECT published_at FROM ledger.outbox WHERE aggregate_id = $1`, [done.body.transactionId]);
    expect(after.rows[0].published_at).not.toBeNull();
    const job = await jobOfEvent(pending.rows[0].id);
    expect((job?.data as LedgerEventBatch).events.find((e) => e.eventId === pending.rows[0].id)?.transactionId).toBe(
      done.body.transactionId,
    );
  }, 20_000);

  it('test funding: add/subtract are a journaled, signed adjustment against suspense; freeze/unfreeze are gone (named holds only)', async () => {
    const a = await fundedAccount(h, 0);
    const add = await h.call('PUT', `/v1/accounts/${a}/balance/add`, { amount: 900, reason: 'reconciliation', createdBy: 'ops-1' });
    expect(add.status).toBe(200);
    expect(add.headers.get('deprecation')).toBe('true');
    expect(add.body.account).toMatchObject({ balance: 900, availableBalance: 900 });
    const sub = await h.call('PUT', `/v1/accounts/${a}/balance/subtract`, { amount: 100, reason: 'reconciliation', createdBy: 'ops-1' });
    expect(sub.body.account.balance).toBe(800);
    const entries = await h.admin.query(
      `SELECT l.kind, l.amount::int, a.account_type, t.metadata->>'typeCode' AS type_code
       FROM ledger.ledgers l JOIN ledger.accounts a ON a.id = l.account_id JOIN ledger.transactions t ON t.id = l.transaction_id
       WHERE l.transaction_id = $1 ORDER BY l.kind`,
      [sub.body.transactionId],
    );
    expect(entries.rows).toEqual([
      { kind: 'CREDIT', amount: 100, account_type: 'suspense', type_code: 'TEST_FUNDING_SUBTRACT' },
      { kind: 'DEBIT', amount: 100, account_type: 'customer', type_code: 'TEST_FUNDING_SUBTRACT' },
    ]);
    expect(
      (await h.call('PUT', `/v1/accounts/${a}/balance/subtract`, { amount: 5_000, reason: 'too much', createdBy: 'ops-1' })).body.code,
    ).toBe('INSUFFICIENT_BALANCE');

    // Holds are named holds only (POST /v1/internal/holds): the anonymous freeze / unfreeze are retired.
    const operator = bearer(await operators.token(TEST_MAKER));
    for (const op of ['freeze', 'unfreeze']) {
      const res = await h.call('PUT', `/v1/accounts/${a}/balance/${op}`, { amount: 300, reason: 'court order' }, operator);
      expect([res.status, res.body.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await h.call('GET', `/v1/internal/accounts/${a}`)).body).toMatchObject({
      balance: 800,
      availableBalance: 800,
      frozenBalance: 0,
    });
    const journal = await h.admin.query(
      `SELECT action, amount::int, operator_id, operator_roles, reason FROM ledger.operator_actions WHERE account_id = $1 ORDER BY created_at, action`,
      [a],
    );
    expect(journal.rows).toEqual([
      { action: 'TEST_FUNDING_ADD', amount: 900, operator_id: 'ops-1', operator_roles: [], reason: 'reconciliation' },
      { action: 'TEST_FUNDING_SUBTRACT', amount: 100, operator_id: 'ops-1', operator_roles: [], reason: 'reconciliation' },
    ]);
    expect((await h.call('PUT', `/v1/accounts/${a}/balance/steal`, { amount: 1, reason: 'nope', createdBy: 'x' })).status).toBe(404);
    expect((await invariants(h.admin)).ledgerGaps).toBe(0);
  });

  it('audit on demand: OK for a clean account, CRITICAL with the gap after a raw balance change', async () => {
    const a = await fundedAccount(h, 700);
    const b = await fundedAccount(h, 0);
    await transfer(h, a, b, 200);
    // audits are an operator's: the access token of a compliance officer comes with the service key
    const auditor = bearer(await operators.token(TEST_CHECKER));
    const ok = await h.call('GET', `/v1/internal/accounts/${a}/audit`, undefined, auditor);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      status: 'OK',
      account: { id: a, currency: 'XAF', accountType: 'customer' },
      balances: { stored: 500, recomputed: '500', gap: '0', consistent: true },
      entries: { count: 2, debits: '200', credits: '700' },
      symmetry: { ok: true },
      orphans: { entryIds: [], unbalancedTransactionIds: [] },
    });
    // The historical bug class: a balance changed without an entry (as the old endpoints did).
    await h.admin.query(`UPDATE ledger.accounts SET balance = balance + 50, available_balance = available_balance + 50 WHERE id = $1`, [a]);
    const bad = await h.call('GET', `/v1/internal/accounts/${a}/audit`, undefined, auditor);
    expect(bad.body.status).toBe('CRITICAL');
    expect(bad.body.balances).toMatchObject({ stored: 550, recomputed: '500', gap: '50' });
  });

  it('integrity job: finds the gap, records the check, sets the metric, alerts compliance; never changes data', async () => {
    const before = await h.admin.query(`SELECT id, balance::text FROM ledger.accounts ORDER BY id`);
    const auditor = bearer(await operators.token(TEST_CHECKER));
    const res = await h.call('POST', '/v1/internal/integrity-checks', undefined, {
      'x-correlation-id': '0f7e3c1a-2b4d-4e6f-8a9b-1c2d3e4f5a6b',
      ...auditor,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'GAPS_FOUND',
      trigger: 'ON_DEMAND',
      correlationId: '0f7e3c1a-2b4d-4e6f-8a9b-1c2d3e4f5a6b',
      requestedBy: TEST_CHECKER.id,
      alertSent: true,
    });
    expect(res.body.gapCount).toBeGreaterThanOrEqual(1);
    expect(res.body.gaps).toEqual(expect.arrayContaining([expect.objectContaining({ gap: '50' })]));
    expect(res.body.currencyTotals.find((t: { currency: string }) => t.currency === 'XAF')).toMatchObject({
      storedTotal: '50',
      ledgerTotal: '0',
      gap: '50',
    });
    expect(alerts).toHaveLength(1);
    expect(alerts[0].body).toMatchObject({
      checkId: res.body.id,
      gapCount: res.body.gapCount,
      correlationId: '0f7e3c1a-2b4d-4e6f-8a9b-1c2d3e4f5a6b',
    });
    const metrics = await (await fetch(`${h.app.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^ledger_integrity_gap_count ${res.body.gapCount}$`, 'm'));
    const after = await h.admin.query(`SELECT id, balance::text FROM ledger.accounts ORDER BY id`);
    expect(after.rows).toEqual(before.rows);
    const stored = await h.call('GET', '/v1/internal/integrity-checks?limit=5', undefined, auditor);
    expect(stored.body[0]).toMatchObject({
      id: res.body.id,
      status: 'GAPS_FOUND',
      gapCount: res.body.gapCount,
      requestedBy: TEST_CHECKER.id,
      requestedByRoles: TEST_CHECKER.roles,
      alert: { attempts: 1, delivered: true, lastError: null },
    });
    // Both answers, with their gaps and currency totals, are what the OpenAPI document describes.
    const doc = await openApiOf(h.app.app);
    expect([
      ...undocumented(doc, 'POST', '/v1/internal/integrity-checks', res),
      ...undocumented(doc, 'GET', '/v1/internal/integrity-checks', stored),
    ]).toEqual([]);
  });
});
