import { callerTableProblems, guardedRoutes } from '../../../test/support/internal-routes';
import { ledgerWalletsApp } from './ledger-wallets.app';
import { LEDGER_INTERNAL_CALLERS } from './internal-callers';

describe('ledger-wallets internal caller table', () => {
  it('has one entry per internal route, only for callers ledger-wallets recognises', () => {
    expect(guardedRoutes(ledgerWalletsApp).length).toBeGreaterThan(0);
    expect(callerTableProblems('ledger-wallets', ledgerWalletsApp, LEDGER_INTERNAL_CALLERS)).toEqual([]);
  });

  it('lets only the orchestrator move money: every write open to a service is open to it alone', () => {
    for (const [route, callers] of Object.entries(LEDGER_INTERNAL_CALLERS)) {
      if (route.startsWith('GET ')) continue;
      // operator routes additionally require an operator's access token (maker-checker)
      const services = callers.filter((c) => c !== 'ops');
      if (services.length > 0) expect({ route, services }).toEqual({ route, services: ['orchestrator'] });
    }
    expect(LEDGER_INTERNAL_CALLERS['POST /v1/internal/intents']).toEqual(['orchestrator']);
    expect(LEDGER_INTERNAL_CALLERS['POST /v1/internal/intents/:id/transition']).toEqual(['orchestrator']);
  });

  it("opens audits and integrity checks to the operators' tooling and to the orchestrator's compliance routes", () => {
    for (const route of [
      'GET /v1/internal/accounts/:id/audit',
      'POST /v1/internal/integrity-checks',
      'GET /v1/internal/integrity-checks',
    ]) {
      expect({ route, callers: LEDGER_INTERNAL_CALLERS[route] }).toEqual({ route, callers: ['orchestrator', 'ops'] });
    }
  });
});
