import { randomBytes } from 'node:crypto';
import { loadConfig } from '@mm/platform';
import { WebhookDispatcherConfig, allowsLoopbackReceivers } from './webhook-dispatcher.config';

// Production also requires the callers' key digests (docs/service-credentials.md).
const base = { INTERNAL_SERVICE_KEY: 'k'.repeat(64), INTERNAL_TRUSTED_CALLERS: `partners:${'a'.repeat(64)},ops:${'b'.repeat(64)}` };

describe('WebhookDispatcherConfig', () => {
  it('refuses to start in production or test without a 32-byte encryption key, naming the variable', () => {
    for (const NODE_ENV of ['production', 'test']) {
      expect(() => loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV })).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY/);
      expect(() =>
        loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV, WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(16).toString('base64') }),
      ).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY/);
    }
  });

  it('accepts a 32-byte key, and no key in development (then the key file under .data/ is used)', () => {
    const key = randomBytes(32).toString('base64');
    expect(
      loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'production', WEBHOOK_SECRET_ENCRYPTION_KEY: key })
        .WEBHOOK_SECRET_ENCRYPTION_KEY,
    ).toBe(key);
    const dev = loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'development' });
    expect([dev.WEBHOOK_SECRET_ENCRYPTION_KEY, dev.WEBHOOK_DEV_KEY_FILE]).toEqual(['', '.data/webhook-dispatcher/secret-encryption.key']);
  });

  it('defaults to the documented values: 5 s timeout, 30 s backoff base, 24 h dedup and rotation overlap, 3 days before disabling', () => {
    const c = loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'development' });
    expect([
      c.WEBHOOK_TIMEOUT_MS,
      c.WEBHOOK_BACKOFF_BASE_MS,
      c.WEBHOOK_DEDUP_TTL_SEC,
      c.WEBHOOK_SECRET_ROTATION_OVERLAP_MS,
      c.WEBHOOK_ENDPOINT_DISABLE_AFTER_MS,
    ]).toEqual([5_000, 30_000, 86_400, 86_400_000, 259_200_000]);
    expect(c.HOST).toBe('127.0.0.1');
  });

  it('sweeps stale pending events every 5 min once they are older than the retry schedule, and bounds queue waits and resend batches', () => {
    const c = loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'development' });
    // 127 × the backoff base is the whole wait of the seven retries: the sweep age stays above it.
    expect(c.WEBHOOK_PENDING_SWEEP_AGE_MS).toBeGreaterThan(127 * c.WEBHOOK_BACKOFF_BASE_MS + 8 * c.WEBHOOK_TIMEOUT_MS);
    expect([c.WEBHOOK_PENDING_SWEEP_INTERVAL_MS, c.WEBHOOK_ENQUEUE_TIMEOUT_MS, c.WEBHOOK_RESEND_BATCH_MAX]).toEqual([
      300_000, 5_000, 1_000,
    ]);
    expect(() => loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'development', WEBHOOK_RESEND_BATCH_MAX: '0' })).toThrow(
      /WEBHOOK_RESEND_BATCH_MAX/,
    );
  });

  it('takes a sweep interval from 0 (timed sweep off) up to 2^31 − 1 ms, refusing what Node would turn into a 1 ms timer', () => {
    const load = (env: Record<string, string>) => loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'development', ...env });
    expect(load({ WEBHOOK_PENDING_SWEEP_INTERVAL_MS: '0' }).WEBHOOK_PENDING_SWEEP_INTERVAL_MS).toBe(0);
    expect(load({ WEBHOOK_PENDING_SWEEP_INTERVAL_MS: '2147483647' }).WEBHOOK_PENDING_SWEEP_INTERVAL_MS).toBe(2_147_483_647);
    expect(() => load({ WEBHOOK_PENDING_SWEEP_INTERVAL_MS: '2147483648' })).toThrow(/WEBHOOK_PENDING_SWEEP_INTERVAL_MS/);
    expect(() => load({ WEBHOOK_PENDING_SWEEP_INTERVAL_MS: '-1' })).toThrow(/WEBHOOK_PENDING_SWEEP_INTERVAL_MS/);
  });

  it('refuses a sweep age not above the enqueue deadline (a resend whose add is still unconfirmed would be queued twice)', () => {
    const load = (env: Record<string, string>) => loadConfig(WebhookDispatcherConfig, { ...base, NODE_ENV: 'development', ...env });
    expect(() => load({ WEBHOOK_PENDING_SWEEP_AGE_MS: '5000' })).toThrow(
      /WEBHOOK_PENDING_SWEEP_AGE_MS must be greater than WEBHOOK_ENQUEUE_TIMEOUT_MS \(5000\)/,
    );
    expect(() => load({ WEBHOOK_PENDING_SWEEP_AGE_MS: '300', WEBHOOK_ENQUEUE_TIMEOUT_MS: '1000' })).toThrow(
      /WEBHOOK_PENDING_SWEEP_AGE_MS must be greater than WEBHOOK_ENQUEUE_TIMEOUT_MS \(1000\)/,
    );
    expect(load({ WEBHOOK_PENDING_SWEEP_AGE_MS: '300', WEBHOOK_ENQUEUE_TIMEOUT_MS: '200' }).WEBHOOK_PENDING_SWEEP_AGE_MS).toBe(300);
  });

  it('allows loopback receivers by default in development and test only; production refuses to boot with them', () => {
    const key = randomBytes(32).toString('base64');
    const load = (env: Record<string, string>) =>
      loadConfig(WebhookDispatcherConfig, { ...base, WEBHOOK_SECRET_ENCRYPTION_KEY: key, ...env });
    expect(allowsLoopbackReceivers(load({ NODE_ENV: 'development' }))).toBe(true);
    expect(allowsLoopbackReceivers(load({ NODE_ENV: 'test' }))).toBe(true);
    expect(allowsLoopbackReceivers(load({ NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK_URLS: 'false' }))).toBe(false);
    expect(allowsLoopbackReceivers(load({ NODE_ENV: 'production' }))).toBe(false);
    expect(allowsLoopbackReceivers(load({ NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK_URLS: 'false' }))).toBe(false);
    expect(() => load({ NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK_URLS: 'true' })).toThrow(
      /WEBHOOK_ALLOW_LOOPBACK_URLS cannot be true when NODE_ENV=production/,
    );
    expect(() => load({ NODE_ENV: 'development', WEBHOOK_ALLOW_LOOPBACK_URLS: 'maybe' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK_URLS/);
  });
});
