import { callerTableProblems, guardedRoutes } from '../../../test/support/internal-routes';
import { orchestratorApp } from './orchestrator.app';
import { ORCHESTRATOR_INTERNAL_CALLERS } from './internal-callers';

describe('orchestrator internal caller table', () => {
  it('has one entry per internal route, only for callers orchestrator recognises', () => {
    expect(guardedRoutes(orchestratorApp).length).toBeGreaterThan(0);
    expect(callerTableProblems('orchestrator', orchestratorApp, ORCHESTRATOR_INTERNAL_CALLERS)).toEqual([]);
  });
});
