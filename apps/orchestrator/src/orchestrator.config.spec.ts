import { loadConfig } from '@mm/platform';
import { OrchestratorConfig, assertOrchestratorProductionConfig } from './orchestrator.config';

const KEY = 'k'.repeat(32);

describe('orchestrator config', () => {
  it('listens on loopback unless HOST names another interface (a container sets HOST=0.0.0.0)', () => {
    // A development machine on a shared network must not expose the gateway, and with it the dev SMS box.
    expect(loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY }).HOST).toBe('127.0.0.1');
    expect(loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it('an empty OPS_ALERT_URL (compose default) means no alert channel, not a bad URL', () => {
    const config = loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, OPS_ALERT_URL: '' });
    expect(config.OPS_ALERT_URL).toBeUndefined();
    expect(() => loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, OPS_ALERT_URL: 'not a url' })).toThrow(/OPS_ALERT_URL/);
  });

  it('production refuses fault injection and the development SMS driver', () => {
    const prod = (env: Record<string, string>) =>
      loadConfig(OrchestratorConfig, {
        INTERNAL_SERVICE_KEY: KEY,
        INTERNAL_TRUSTED_CALLERS: `partners:${'a'.repeat(64)}`,
        NODE_ENV: 'production',
        ...env,
      });
    expect(() =>
      assertOrchestratorProductionConfig(
        prod({ SMS_DRIVER: 'http', SMS_PROVIDER_URL: 'https://sms.example', SAGA_FAULT_INJECTION: 'true' }),
      ),
    ).toThrow(/SAGA_FAULT_INJECTION/);
    expect(() => assertOrchestratorProductionConfig(prod({}))).toThrow(/SMS_DRIVER must be http/);
    expect(() => assertOrchestratorProductionConfig(prod({ SMS_DRIVER: 'http' }))).toThrow(/SMS_PROVIDER_URL/);
    expect(() => assertOrchestratorProductionConfig(prod({ SMS_DRIVER: 'http', SMS_PROVIDER_URL: 'https://sms.example' }))).toThrow(
      /STAFF_AUDIT_ANCHOR_KEY is required/,
    );
    const complete = { SMS_DRIVER: 'http', SMS_PROVIDER_URL: 'https://sms.example', STAFF_AUDIT_ANCHOR_KEY: 'a'.repeat(32) };
    expect(() => assertOrchestratorProductionConfig(prod(complete))).not.toThrow();
    expect(() => prod({ ...complete, STAFF_AUDIT_ANCHOR_KEY: 'short' })).toThrow(/STAFF_AUDIT_ANCHOR_KEY must be at least 32 characters/);
    // development and tests may inject faults
    const dev = loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, SAGA_FAULT_INJECTION: 'true' });
    expect(() => assertOrchestratorProductionConfig(dev)).not.toThrow();
  });
  it("compliance officers' audits and checks get their own, longer ledger budget (120 s unless set, at least 1 s)", () => {
    const config = loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY });
    expect(config.COMPLIANCE_LEDGER_TIMEOUT_MS).toBe(120_000);
    expect(config.COMPLIANCE_LEDGER_TIMEOUT_MS).toBeGreaterThan(config.LEDGER_TIMEOUT_MS);
    expect(
      loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, COMPLIANCE_LEDGER_TIMEOUT_MS: '300000' }).COMPLIANCE_LEDGER_TIMEOUT_MS,
    ).toBe(300_000);
    expect(() => loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, COMPLIANCE_LEDGER_TIMEOUT_MS: '500' })).toThrow(
      /COMPLIANCE_LEDGER_TIMEOUT_MS/,
    );
  });
});
