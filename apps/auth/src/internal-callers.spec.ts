import { callerTableProblems, guardedRoutes } from '../../../test/support/internal-routes';
import { authApp } from './auth.app';
import { AUTH_INTERNAL_CALLERS } from './internal-callers';

describe('auth internal caller table', () => {
  it('has one entry per internal route, only for callers auth recognises', () => {
    expect(guardedRoutes(authApp).length).toBeGreaterThan(0);
    expect(callerTableProblems('auth', authApp, AUTH_INTERNAL_CALLERS)).toEqual([]);
  });
});
