import { Logger } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { LEDGER_EVENT_BATCH_JOB } from '@mm/contracts';
import { MetricsService } from '@mm/platform';
import type { PartnersConfig } from '../partners.config';
import { Lanes, LedgerEventsWorker } from './ledger-events.worker';
import type { OrderPaymentService } from './order-payment.service';

const event = {
  eventId: '5d7f4a8e-9a1b-4c2d-8e3f-1a2b3c4d5e6f',
  type: 'transaction.completed',
  occurredAt: '2026-11-22T10:00:00.000Z',
  transactionId: '6e8f5b9f-0b2c-4d3e-9f40-2b3c4d5e6f70',
  referenceId: 'MMPTX2611220A1B2C3',
  intentId: '7f906c0a-1c3d-4e4f-8a51-3c4d5e6f7081',
  intentType: 'TRANSFER',
  amount: 2500,
  fee: 0,
  commission: 0,
  currency: 'XAF',
  sourceAccountId: 'a',
  destinationAccountId: 'b',
  qrToken: 'pqr_x',
  createdBy: 'u',
  typeCode: 'P2P',
  agentId: null,
  correlationId: null,
};

function job(data: unknown, attemptsStarted = 1, name = 'transaction.completed') {
  const j = {
    id: 'job-1',
    name,
    data,
    attemptsStarted,
    moveToDelayed: jest.fn().mockResolvedValue(undefined),
    updateData: jest.fn(async (d: unknown) => {
      j.data = d;
    }),
  };
  return j as unknown as Job & { moveToDelayed: jest.Mock; updateData: jest.Mock };
}

const metrics = new MetricsService();
const batch = (events: unknown[], attemptsStarted = 1) => job({ events }, attemptsStarted, LEDGER_EVENT_BATCH_JOB);
const nth = (i: number) => ({ ...event, eventId: event.eventId.replace(/.$/, String(i)), qrToken: `pqr_${i}` });

describe('LedgerEventsWorker', () => {
  const apply = jest.fn();
  const applied = jest.fn();
  const worker = new LedgerEventsWorker(
    { PARTNERS_LEDGER_EVENTS_CONCURRENCY: 3 } as PartnersConfig,
    {
      applyTransactionCompleted: apply,
      appliedEventIds: applied,
    } as unknown as OrderPaymentService,
    metrics,
  );
  beforeEach(() => {
    apply.mockReset();
    applied.mockReset().mockResolvedValue(new Set());
  });

  it('hands a well-formed transaction.completed to the payment service', async () => {
    apply.mockResolvedValue('paid');
    await expect(worker.process(job(event), 'tok')).resolves.toEqual(['paid']);
    expect(apply).toHaveBeenCalledWith(event);
  });

  it('ignores other job names and refuses malformed payloads without retrying them', async () => {
    await expect(worker.process(job(event, 1, 'something.else'))).resolves.toEqual(['ignored']);
    await expect(worker.process(job({ ...event, amount: 1.5 }))).resolves.toEqual(['invalid']);
    await expect(worker.process(job({ ...event, eventId: 'nope' }))).resolves.toEqual(['invalid']);
    await expect(
      worker.process(
        batch([
          { ...event, type: 'something.else' },
          { ...event, amount: 1.5 },
        ]),
      ),
    ).resolves.toEqual(['ignored', 'invalid']);
    await expect(worker.process(job({ nothing: true }, 1, LEDGER_EVENT_BATCH_JOB))).resolves.toEqual([]);
    expect(apply).not.toHaveBeenCalled();
  });

  it('applies every event of a batch; events of all jobs share the configured number of lanes', async () => {
    let running = 0;
    let most = 0;
    apply.mockImplementation(async (e: typeof event) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return e.qrToken === 'pqr_2' ? 'not_an_order' : 'paid';
    });
    const events = [0, 1, 2, 3, 4, 5, 6].map(nth);
    const [first, second] = await Promise.all([worker.process(batch(events), 'tok'), worker.process(batch([nth(7), nth(8)]), 'tok')]);
    expect(first).toEqual(['paid', 'paid', 'not_an_order', 'paid', 'paid', 'paid', 'paid']);
    expect(second).toEqual(['paid', 'paid']);
    expect(apply.mock.calls.map((c) => c[0]).slice(0, 7)).toEqual(events);
    expect(most).toBe(3);
  });

  it('a batch with any failed event goes back to the delayed set whole, its data untouched', async () => {
    apply.mockImplementation(async (e: typeof event) => {
      if (e.qrToken === 'pqr_3') throw new Error('database unavailable');
      return 'paid';
    });
    const events = [0, 1, 2, 3, 4].map(nth);
    const j = batch(events);
    await expect(worker.process(j, 'tok')).rejects.toBeInstanceOf(DelayedError);
    expect(j.moveToDelayed).toHaveBeenCalledWith(expect.any(Number), 'tok');
    expect(j.updateData).not.toHaveBeenCalled();
    expect(apply).toHaveBeenCalledTimes(5);
    expect(applied).not.toHaveBeenCalled(); // a first run reads nothing first
  });

  it('a retried batch skips, after one read, the events a previous run applied', async () => {
    const events = [0, 1, 2, 3].map(nth);
    applied.mockResolvedValue(new Set([events[0].eventId, events[2].eventId]));
    apply.mockResolvedValue('paid');
    await expect(worker.process(batch(events, 2), 'tok')).resolves.toEqual(['duplicate', 'paid', 'duplicate', 'paid']);
    expect(applied).toHaveBeenCalledWith(events.map((e) => e.eventId));
    expect(apply.mock.calls.map((c) => c[0])).toEqual([events[1], events[3]]);
  });
});

describe('LedgerEventsWorker retries', () => {
  const apply = jest.fn();
  const worker = new LedgerEventsWorker(
    { PARTNERS_LEDGER_EVENTS_CONCURRENCY: 3 } as PartnersConfig,
    {
      applyTransactionCompleted: apply,
    } as unknown as OrderPaymentService,
    metrics,
  );

  it('a failure puts the job back in the delayed set with a growing delay (never the failed set)', async () => {
    apply.mockRejectedValue(new Error('database unavailable'));
    const delays: number[] = [];
    for (const attempt of [1, 2, 3, 20]) {
      const j = job(event, attempt);
      const before = Date.now();
      await expect(worker.process(j, 'tok')).rejects.toBeInstanceOf(DelayedError);
      expect(j.moveToDelayed).toHaveBeenCalledWith(expect.any(Number), 'tok');
      delays.push(j.moveToDelayed.mock.calls[0][0] - before);
    }
    expect(delays[0]).toBeGreaterThanOrEqual(450);
    expect(delays[1]).toBeGreaterThan(delays[0]);
    expect(delays[2]).toBeGreaterThan(delays[1]);
    expect(delays[3]).toBeLessThanOrEqual(60_100);
  });

  it('a job still failing after 20 tries is logged as an alert on each further try', async () => {
    apply.mockRejectedValue(new Error('value too long'));
    const stuckCount = async () =>
      (await metrics.registry.getSingleMetric('partners_ledger_events_stuck_total')!.get()).values[0]?.value ?? 0;
    const before = await stuckCount();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await expect(worker.process(job(event, 19), 'tok')).rejects.toBeInstanceOf(DelayedError);
      expect(error).not.toHaveBeenCalled();
      await expect(worker.process(job(event, 20), 'tok')).rejects.toBeInstanceOf(DelayedError);
      expect(error).toHaveBeenCalledWith(expect.objectContaining({ alert: 'partners.ledger_event_stuck', attempt: 20 }));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(await stuckCount()).toBe(before + 1);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});

describe('Lanes', () => {
  it('runs at most its size at once, the rest in arrival order, and frees a lane when a task fails', async () => {
    const lanes = new Lanes(2);
    const started: number[] = [];
    const gates = Array.from({ length: 4 }, () => {
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      return { gate, open };
    });
    const runs = gates.map((g, i) =>
      lanes.run(async () => {
        started.push(i);
        await g.gate;
        if (i === 0) throw new Error('failed');
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    gates[0].open();
    await expect(runs[0]).rejects.toThrow('failed');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[1].open();
    gates[2].open();
    gates[3].open();
    await expect(Promise.all(runs.slice(1))).resolves.toEqual([1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
  });
});
