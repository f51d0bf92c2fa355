import { enqueueFailureCode, resendJobId, runOfJob } from './webhook-queue';

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

describe('runOfJob: the run a job id names, the inverse of resendJobId', () => {
  const eventId = '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a';
  it('reads back every run resendJobId writes', () => {
    for (const run of [0, 1, 2, 17]) expect(runOfJob(eventId, resendJobId(eventId, run))).toBe(run);
    expect(runOfJob(eventId, resendJobId(eventId, 3).toUpperCase())).toBe(3);
  });
  it("is undefined for another event's job or a malformed run", () => {
    expect(runOfJob(eventId, resendJobId('1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 1))).toBeUndefined();
    for (const suffix of ['-resend-0', '-resend-', '-resend-01', '-other-1']) expect(runOfJob(eventId, eventId + suffix)).toBeUndefined();
  });
});
