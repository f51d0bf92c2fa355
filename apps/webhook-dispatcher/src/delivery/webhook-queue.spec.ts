import { enqueueFailureCode } from './webhook-queue';

describe('enqueueFailureCode: whether a failed add may still have queued its job', () => {
  it('is UNAVAILABLE (nothing queued) when the add was never handed to a ready connection', () => {
    expect(enqueueFailureCode(false, new Error('no answer from Redis within 1000 ms'))).toBe('WEBHOOK_QUEUE_UNAVAILABLE');
    expect(enqueueFailureCode(false, new Error('Redis connection is reconnecting'))).toBe('WEBHOOK_QUEUE_UNAVAILABLE');
  });

  it('is UNAVAILABLE when ioredis refused the command at once (the connection went down, no offline queue)', () => {
    expect(enqueueFailureCode(true, new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(
      'WEBHOOK_QUEUE_UNAVAILABLE',
    );
  });

  it('is UNCONFIRMED when the add was sent and no answer came: the deadline, a connection closed under it, an error reply', () => {
    for (const message of ['no answer from Redis within 1000 ms', 'Connection is closed.', 'ERR something'])
      expect(enqueueFailureCode(true, new Error(message))).toBe('WEBHOOK_QUEUE_UNCONFIRMED');
  });
});
