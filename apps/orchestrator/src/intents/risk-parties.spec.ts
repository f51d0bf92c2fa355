import { limitCheck } from './risk-parties';

describe('limitCheck: one operation as the limits see it', () => {
  const operation = {
    idempotencyKey: 'k-1',
    operationType: 'CASH_OUT' as const,
    amount: 5_000,
    currency: 'XAF' as const,
    initiatorUserId: 'agent-user',
  };
  const customer = { userId: 'cust', role: 'CUSTOMER' as const, kycTier: 'TIER_1' };
  const agent = { userId: 'agent-user', role: 'AGENT' as const, kycTier: 'TIER_0' };

  it('always carries the initiator, which decides whether a refusal may state the room left', () => {
    expect(limitCheck(operation, { payer: customer, payee: agent, agentId: 'agent-1' })).toEqual({
      operationId: 'k-1',
      type: 'CASH_OUT',
      amount: 5_000,
      currency: 'XAF' as const,
      initiatorUserId: 'agent-user',
      payer: { userId: 'cust', kycTier: 'TIER_1' },
      agent: { agentId: 'agent-1' },
    });
  });

  it("gives the credited customer's tier (its balance cap), and no tier to merchants or agents", () => {
    const check = limitCheck(
      { ...operation, operationType: 'CASH_IN', initiatorUserId: 'agent-user' },
      { payer: agent, payee: customer, agentId: 'agent-1' },
    );
    expect(check.payer).toBeUndefined();
    expect(check.payee).toEqual({ userId: 'cust', kycTier: 'TIER_1' });
    expect(check.initiatorUserId).toBe('agent-user');
  });
});
