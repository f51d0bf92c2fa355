import { loadConfig } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import type { ApprovalHandler } from './approval-handler';
import { ApprovalRegistry } from './approval-registry';

const KEY = 'k'.repeat(32);

function handler(action: ApprovalHandler['action'], fourEyesMandatory: boolean): ApprovalHandler {
  return {
    action,
    makerPermission: 'ledger.corrections',
    checkerPermission: 'ledger.corrections',
    fourEyesMandatory,
    parse: (p) => p,
    describe: () => ({ target: { type: 'account', id: 'a' }, summary: 's' }),
    preview: async () => null,
    execute: async () => null,
  };
}

describe('ApprovalRegistry', () => {
  const registry = (onePerson: string) =>
    new ApprovalRegistry(loadConfig(OrchestratorConfig, { INTERNAL_SERVICE_KEY: KEY, APPROVALS_ONE_PERSON_ACTIONS: onePerson }));

  it('refuses to start when configuration makes a mandatory four-eyes action one-person', () => {
    expect(() => registry('LEDGER_CORRECTION').register(handler('LEDGER_CORRECTION', true))).toThrow(
      /APPROVALS_ONE_PERSON_ACTIONS lists LEDGER_CORRECTION/,
    );
    expect(() => registry('CONFIG_CHANGE').register(handler('CONFIG_CHANGE', false))).not.toThrow();
    expect(() => registry('').register(handler('LEDGER_CORRECTION', true))).not.toThrow();
  });

  it('refuses a second handler for one action', () => {
    const r = registry('');
    r.register(handler('FLOAT_FUNDING', true));
    expect(() => r.register(handler('FLOAT_FUNDING', true))).toThrow(/registered twice/);
  });
});
