import { callerTableProblems, guardedRoutes } from '../../../test/support/internal-routes';
import { partnersApp } from './partners.app';
import { PARTNERS_INTERNAL_CALLERS } from './internal-callers';

describe('partners internal caller table', () => {
  it('has one entry per internal route, only for callers partners recognises', () => {
    expect(guardedRoutes(partnersApp).length).toBeGreaterThan(0);
    expect(callerTableProblems('partners', partnersApp, PARTNERS_INTERNAL_CALLERS)).toEqual([]);
  });
});
