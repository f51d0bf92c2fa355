import { loadConfig } from '@mm/platform';
import { LedgerWalletsConfig, assertLedgerProductionConfig, consentJwksUrl } from './ledger-wallets.config';

const KEY = 'k'.repeat(32);

describe('ledger-wallets config', () => {
  it('an empty compliance alert or key-set URL (compose passes "" when .env leaves it empty) means unset, not a bad URL', () => {
    const config = loadConfig(LedgerWalletsConfig, {
      INTERNAL_SERVICE_KEY: KEY,
      LEDGER_COMPLIANCE_ALERT_URL: '',
      LEDGER_CONSENT_JWKS_URL: '',
    });
    expect(config.LEDGER_COMPLIANCE_ALERT_URL).toBeUndefined();
    expect(consentJwksUrl(config)).toBe(`${config.AUTH_URL}/auth/.well-known/jwks.json`);
    for (const name of ['LEDGER_COMPLIANCE_ALERT_URL', 'LEDGER_CONSENT_JWKS_URL'])
      expect(() => loadConfig(LedgerWalletsConfig, { INTERNAL_SERVICE_KEY: KEY, [name]: 'not a url' })).toThrow(name);
  });

  it('refuses a pool of one connection: the session gate needs one connection left outside it', () => {
    // With one connection the only admitted session would hold it, and a read it makes (or /health)
    // would wait on the pool for that same connection until the pool's timeout.
    expect(() => loadConfig(LedgerWalletsConfig, { INTERNAL_SERVICE_KEY: KEY, DB_POOL_SIZE: '1' })).toThrow(/DB_POOL_SIZE.*at least 2/);
    expect(loadConfig(LedgerWalletsConfig, { INTERNAL_SERVICE_KEY: KEY, DB_POOL_SIZE: '2' }).DB_POOL_SIZE).toBe(2);
  });

  it('production refuses to boot without LEDGER_CHAIN_ANCHOR_KEY; elsewhere the development key stands in', () => {
    const load = (env: Record<string, string>) =>
      loadConfig(LedgerWalletsConfig, { INTERNAL_SERVICE_KEY: KEY, INTERNAL_TRUSTED_CALLERS: `orchestrator:${'a'.repeat(64)}`, ...env });
    expect(() => assertLedgerProductionConfig(load({ NODE_ENV: 'production' }))).toThrow(/LEDGER_CHAIN_ANCHOR_KEY is required/);
    expect(() => assertLedgerProductionConfig(load({ NODE_ENV: 'production', LEDGER_CHAIN_ANCHOR_KEY: 'a'.repeat(32) }))).not.toThrow();
    for (const NODE_ENV of ['development', 'test']) expect(() => assertLedgerProductionConfig(load({ NODE_ENV }))).not.toThrow();
    expect(() => load({ LEDGER_CHAIN_ANCHOR_KEY: 'too short' })).toThrow(/LEDGER_CHAIN_ANCHOR_KEY must be at least 32 characters/);
  });
});
