import { callerTableProblems, guardedRoutes } from '../../../test/support/internal-routes';
import { webhookDispatcherApp } from './webhook-dispatcher.app';
import { DISPATCHER_INTERNAL_CALLERS } from './internal-callers';

describe('webhook-dispatcher internal caller table', () => {
  it('has one entry per internal route, only for callers webhook-dispatcher recognises', () => {
    expect(guardedRoutes(webhookDispatcherApp).length).toBeGreaterThan(0);
    expect(callerTableProblems('webhook-dispatcher', webhookDispatcherApp, DISPATCHER_INTERNAL_CALLERS)).toEqual([]);
  });

  it('opens the dispatcher to partners, the orchestrator (staff operations) and operators only, and event creation to partners alone', () => {
    for (const callers of Object.values(DISPATCHER_INTERNAL_CALLERS)) {
      for (const caller of callers) expect(['partners', 'orchestrator', 'ops']).toContain(caller);
    }
    expect(DISPATCHER_INTERNAL_CALLERS['POST /internal/webhooks/events']).toEqual(['partners']);
    // the endpoint's URL and secret are partners' to set: staff change them through partners
    expect(DISPATCHER_INTERNAL_CALLERS['PUT /internal/webhooks/endpoints/:integrationId']).toEqual(['partners']);
    expect(DISPATCHER_INTERNAL_CALLERS['POST /internal/webhooks/endpoints/:integrationId/rotate-secret']).toEqual(['partners']);
  });
});
