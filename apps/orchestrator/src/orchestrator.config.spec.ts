import { loadConfig } from '@mm/platform';
import { OrchestratorConfig, assertOrchestratorProductionConfig } from './orchestrator.config';

const KEY = 'k'.repeat(32);

describe('orchestrator config', () => {
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
    expect(() => assertOrchestratorProductionConfig(prod({ SMS_DRIVER: 'http', SMS_PROVIDER_URL: 'https://sms.example' }))).not.toThrow();
    // development and tests may inject faults
    const dev = loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, SAGA_FAULT_INJECTION: 'true' });
    expect(() => assertOrchestratorProductionConfig(dev)).not.toThrow();
  });
});
