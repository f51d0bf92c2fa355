import { randomUUID } from 'node:crypto';
import { AppException } from '@mm/errors';
import { serializeEnvelope } from './envelope';

const valid = () => ({
  integrationId: randomUUID(),
  envelope: { event: 'order.paid', id: randomUUID(), createdAt: '2026-11-22T02:00:00.000Z', data: { orderId: randomUUID(), amount: 100 } },
});

describe('serializeEnvelope', () => {
  it('serialises the four envelope fields in spec order, and nothing else', () => {
    const job = valid();
    const { body } = serializeEnvelope({
      ...job,
      envelope: { data: job.envelope.data, createdAt: job.envelope.createdAt, id: job.envelope.id, event: 'order.paid', extra: 1 } as never,
    });
    expect(Object.keys(JSON.parse(body))).toEqual(['event', 'id', 'createdAt', 'data']);
    expect(JSON.parse(body)).toEqual(job.envelope);
  });

  it.each([
    ['a non-UUID integration', (j: ReturnType<typeof valid>) => ({ ...j, integrationId: 'x' })],
    [
      'a non-v4 event id',
      (j: ReturnType<typeof valid>) => ({ ...j, envelope: { ...j.envelope, id: '6f1c2f0e-3b5a-1c1d-9e2f-0a1b2c3d4e5f' } }),
    ],
    ['a missing event type', (j: ReturnType<typeof valid>) => ({ ...j, envelope: { ...j.envelope, event: '' } })],
    ['a non-ISO createdAt', (j: ReturnType<typeof valid>) => ({ ...j, envelope: { ...j.envelope, createdAt: 'yesterday' } })],
    ['array data', (j: ReturnType<typeof valid>) => ({ ...j, envelope: { ...j.envelope, data: [] as never } })],
    ['no envelope', (j: ReturnType<typeof valid>) => ({ ...j, envelope: undefined as never })],
  ])('rejects %s with INVALID_WEBHOOK_EVENT', (_name, mutate) => {
    expect(() => serializeEnvelope(mutate(valid()))).toThrow(AppException);
    try {
      serializeEnvelope(mutate(valid()));
    } catch (error) {
      expect((error as AppException).code).toBe('INVALID_WEBHOOK_EVENT');
    }
  });
});
