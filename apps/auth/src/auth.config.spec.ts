import { loadConfig } from '@mm/platform';
import { AuthConfig } from './auth.config';

// What every service needs to boot (production also wants the callers' key digests).
const base = { INTERNAL_SERVICE_KEY: 'k'.repeat(64), INTERNAL_TRUSTED_CALLERS: `orchestrator:${'a'.repeat(64)}` };
const load = (env: Record<string, string>) => loadConfig(AuthConfig, { ...base, ...env });

describe('AuthConfig: clean-up of old one-time codes', () => {
  it('keeps code rows 7 days after their expiry by default, and cleans up every hour', () => {
    const dev = load({ NODE_ENV: 'development' });
    expect(dev.OTP_RETENTION_SEC).toBe(7 * 24 * 3600);
    expect(dev.OTP_CLEANUP_INTERVAL_MS).toBe(3_600_000);
  });

  it('takes the interval as set; 0 turns the timer off', () => {
    expect(load({ OTP_CLEANUP_INTERVAL_MS: '250' }).OTP_CLEANUP_INTERVAL_MS).toBe(250);
    expect(load({ NODE_ENV: 'production', OTP_CLEANUP_INTERVAL_MS: '0' }).OTP_CLEANUP_INTERVAL_MS).toBe(0);
    expect(() => load({ OTP_CLEANUP_INTERVAL_MS: '-1' })).toThrow(/OTP_CLEANUP_INTERVAL_MS/);
  });

  it('refuses a retention shorter than an hour or than the proof window (a replay would find its row gone)', () => {
    expect(() => load({ OTP_RETENTION_SEC: '600' })).toThrow(/OTP_RETENTION_SEC/);
    expect(() => load({ OTP_RETENTION_SEC: '3600', OTP_PROOF_TTL_SEC: '7200' })).toThrow(
      /OTP_RETENTION_SEC must be at least OTP_PROOF_TTL_SEC/,
    );
    expect(load({ OTP_RETENTION_SEC: '7200', OTP_PROOF_TTL_SEC: '7200' }).OTP_RETENTION_SEC).toBe(7200);
  });
});
