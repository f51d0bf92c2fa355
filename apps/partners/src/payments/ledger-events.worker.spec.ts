import { DelayedError, type Job } from 'bullmq';
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
  return { id: 'job-1', name, data, attemptsStarted, moveToDelayed: jest.fn().mockResolvedValue(undefined) } as unknown as Job & {
    moveToDelayed: jest.Mock;
  };
}

describe('LedgerEventsWorker', () => {
  const apply = jest.fn();
  const worker = new LedgerEventsWorker({} as PartnersConfig, { applyTransactionCompleted: apply } as unknown as OrderPaymentService);
  beforeEach(() => apply.mockReset());

  it('hands a well-formed transaction.completed to the payment service', async () => {
    apply.mockResolvedValue('paid');
    await expect(worker.process(job(event), 'tok')).resolves.toBe('paid');
    expect(apply).toHaveBeenCalledWith(event);
  });

  it('ignores other job names and refuses malformed payloads without retrying them', async () => {
    await expect(worker.process(job(event, 1, 'something.else'))).resolves.toBe('ignored');
    await expect(worker.process(job({ ...event, amount: 1.5 }))).resolves.toBe('invalid');
    await expect(worker.process(job({ ...event, eventId: 'nope' }))).resolves.toBe('invalid');
    expect(apply).not.toHaveBeenCalled();
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
