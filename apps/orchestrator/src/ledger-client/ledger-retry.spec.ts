import { AppException } from '@mm/errors';
import { isRetryable, withRetries } from './ledger-retry';

describe('ledger retries', () => {
  const policy = { attempts: 3, baseDelayMs: 1 };

  it.each([
    ['UPSTREAM_TIMEOUT', true],
    ['UPSTREAM_UNAVAILABLE', true],
    ['SERVICE_UNAVAILABLE', true],
    ['IDEMPOTENCY_KEY_IN_PROGRESS', true],
    ['INTERNAL_ERROR', true],
    ['INSUFFICIENT_BALANCE', false],
    ['CONCURRENCY_CONFLICT', false],
    ['INTENT_EXPIRED', false],
    ['LEDGER_INTEGRITY_VIOLATION', false],
  ] as const)('%s is retried: %s', (code, retried) => {
    expect(isRetryable(new AppException(code))).toBe(retried);
  });

  it('is not fooled by a plain error', () => {
    expect(isRetryable(new Error('boom'))).toBe(false);
  });

  it('tries again until an answer comes, within the attempts', async () => {
    let calls = 0;
    const result = await withRetries(policy, async () => {
      if (++calls < 3) throw new AppException('UPSTREAM_TIMEOUT');
      return 'ok';
    });
    expect([result, calls]).toEqual(['ok', 3]);
  });

  it('gives up after the last attempt with the last stable code', async () => {
    let calls = 0;
    const call = () => {
      calls++;
      return Promise.reject(new AppException('UPSTREAM_TIMEOUT'));
    };
    await expect(withRetries(policy, call)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(calls).toBe(3);
  });

  it("relays a business refusal at once, and turns the ledger's own 500 into 502 UPSTREAM_UNAVAILABLE", async () => {
    let calls = 0;
    await expect(
      withRetries(policy, () => {
        calls++;
        return Promise.reject(new AppException('INSUFFICIENT_BALANCE', 'available 1, required 2'));
      }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: 'available 1, required 2' });
    expect(calls).toBe(1);
    await expect(withRetries(policy, () => Promise.reject(new AppException('INTERNAL_ERROR')))).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      status: 502,
    });
  });
});
