import { loadConfig } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';

const KEY = 'k'.repeat(32);

describe('maker-checker configuration', () => {
  it('needs four eyes for every action unless APPROVALS_ONE_PERSON_ACTIONS lists it', () => {
    expect(loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY }).APPROVALS_ONE_PERSON_ACTIONS).toEqual([]);
    expect(
      loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, APPROVALS_ONE_PERSON_ACTIONS: '' }).APPROVALS_ONE_PERSON_ACTIONS,
    ).toEqual([]);
    const config = loadConfig(OrchestratorConfig, {
      INTERNAL_SERVICE_KEY: KEY,
      APPROVALS_ONE_PERSON_ACTIONS: ' CONFIG_CHANGE, PARTNER_KEY_ISSUE ',
    });
    expect(config.APPROVALS_ONE_PERSON_ACTIONS).toEqual(['CONFIG_CHANGE', 'PARTNER_KEY_ISSUE']);
  });

  it('refuses at start an action code that does not exist, naming the variable', () => {
    expect(() => loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, APPROVALS_ONE_PERSON_ACTIONS: 'CONFIG_CHANGE,FLY' })).toThrow(
      /APPROVALS_ONE_PERSON_ACTIONS/,
    );
  });

  it('defaults to a day of validity and a compliance limit of 1 000 000', () => {
    const config = loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY });
    expect(config.APPROVAL_TTL_SECONDS).toBe(86_400);
    expect(config.APPROVAL_COMPLIANCE_LIMIT).toBe(1_000_000);
  });
});
