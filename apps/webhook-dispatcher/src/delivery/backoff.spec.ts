import { WEBHOOK_MAX_ATTEMPTS } from '@mm/contracts';
import { webhookBackoffMs } from './backoff';

describe('webhook backoff', () => {
  it('doubles from the base: 30 s up to 32 min, about one hour over the 7 retries of docs/partners.md "5. Webhooks"', () => {
    const delays = Array.from({ length: WEBHOOK_MAX_ATTEMPTS - 1 }, (_, i) => webhookBackoffMs(30_000, i + 1));
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000]);
    const totalMin = delays.reduce((a, b) => a + b, 0) / 60_000;
    expect(totalMin).toBeGreaterThan(60);
    expect(totalMin).toBeLessThan(65);
  });
});
