import { DelayedError, type Job } from 'bullmq';
import { LEDGER_EVENT_BATCH_JOB } from '@mm/contracts';
import type { PartnersConfig } from '../partners.config';
import { LedgerEventsWorker } from './ledger-events.worker';
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

const batch = (events: unknown[], attemptsStarted = 1) => job({ events }, attemptsStarted, LEDGER_EVENT_BATCH_JOB);
const nth = (i: number) => ({ ...event, eventId: event.eventId.replace(/.$/, String(i)), qrToken: `pqr_${i}` });

describe('LedgerEventsWorker', () => {
  const apply = jest.fn();
  const worker = new LedgerEventsWorker(
    { PARTNERS_LEDGER_EVENTS_CONCURRENCY: 3 } as PartnersConfig,
    {
      applyTransactionCompleted: apply,
    } as unknown as OrderPaymentService,
  );
  beforeEach(() => apply.mockReset());

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

  it('applies every event of a batch, in order, never more than the configured number at once', async () => {
    let running = 0;
    let most = 0;
    apply.mockImplementation(async (e: typeof event) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return e.qrToken === 'pqr_2' ? 'not_an_order' : 'paid';
    });
    const events = [0, 1, 2, 3, 4, 5, 6].map(nth);
    await expect(worker.process(batch(events), 'tok')).resolves.toEqual(['paid', 'paid', 'not_an_order', 'paid', 'paid', 'paid', 'paid']);
    expect(apply.mock.calls.map((c) => c[0])).toEqual(events);
    expect(most).toBe(3);
  });

  it('a batch whose events partly fail keeps only those, in order, and goes back to the delayed set', async () => {
    apply.mockImplementation(async (e: typeof event) => {
      if (e.qrToken === 'pqr_1' || e.qrToken === 'pqr_3') throw new Error('database unavailable');
      return 'paid';
    });
    const events = [0, 1, 2, 3, 4].map(nth);
    const j = batch(events);
    await expect(worker.process(j, 'tok')).rejects.toBeInstanceOf(DelayedError);
    expect(j.updateData).toHaveBeenCalledWith({ events: [events[1], events[3]] });
    expect(j.moveToDelayed).toHaveBeenCalledWith(expect.any(Number), 'tok');
    // The retry applies just those two.
    apply.mockReset().mockResolvedValue('paid');
    await expect(worker.process(j, 'tok')).resolves.toEqual(['paid', 'paid']);
    expect(apply.mock.calls.map((c) => c[0])).toEqual([events[1], events[3]]);
  });

  it('a batch whose every event fails is retried whole, without rewriting its data', async () => {
    apply.mockRejectedValue(new Error('database unavailable'));
    const j = batch([nth(0), nth(1)]);
    await expect(worker.process(j, 'tok')).rejects.toBeInstanceOf(DelayedError);
    expect(j.updateData).not.toHaveBeenCalled();
    expect(j.moveToDelayed).toHaveBeenCalledTimes(1);
  });

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
});
