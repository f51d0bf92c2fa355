import { executionContext } from './execution-context';
import type { AgentSnapshot, PartySnapshot, PaymentIntentRecord } from './payment-intent.types';

const party = (id: string, role: PartySnapshot['role']): PartySnapshot => ({
  userId: `user-${id}`,
  customerId: `customer-${id}`,
  role,
  phone: '+237690000001',
  displayName: id,
  kycTier: 'TIER_1',
  accountId: `account-${id}`,
});
const agent: AgentSnapshot = {
  ...party('agent', 'AGENT'),
  agentId: 'agent-id',
  agentCode: 'AG00000001',
  masterAgentUserId: null,
  commissionAccountId: 'commission-account',
};

function intent(type: PaymentIntentRecord['type'], operationType: PaymentIntentRecord['operationType']): PaymentIntentRecord {
  const cashIn = type === 'CASH_IN';
  const payer = cashIn ? agent : party('alice', 'CUSTOMER');
  const payee = type === 'CASH_OUT' ? agent : party('bob', operationType === 'MERCHANT_PAYMENT' ? 'MERCHANT' : 'CUSTOMER');
  return {
    type,
    operationType,
    amount: 10_000,
    currency: 'XAF',
    sourceAccountId: payer.accountId,
    destinationAccountId: payee.accountId,
    payer,
    payee,
    agent: type === 'TRANSFER' ? null : agent,
    description: 'label',
    quoteId: 'quote',
    riskCreateDecisionId: 'risk',
    correlationId: null,
  } as PaymentIntentRecord;
}

const charged = (fee: number, commission: number, payeeBalanceCap?: number) => ({ fee, commission, payeeBalanceCap });

describe('the executionContext of a confirm', () => {
  it("a transfer: amount between the two accounts, the fee (to the ledger's FEE_COLLECTION), the payee's cap, never a commission", () => {
    const ctx = executionContext(intent('TRANSFER', 'TRANSFER'), charged(100, 40, 500_000), 'user-alice');
    expect(ctx).toMatchObject({
      sourceAccountId: 'account-alice',
      destinationAccountId: 'account-bob',
      amount: 10_000,
      currency: 'XAF',
      fee: { amount: 100 },
      payeeBalanceCap: 500_000,
      createdBy: 'user-alice',
      metadata: { typeCode: 'P2P', description: 'label' },
    });
    expect(ctx.fee).toEqual({ amount: 100 });
    expect(ctx.commission).toBeUndefined();
    expect(ctx.metadata?.agentId).toBeUndefined();
  });

  it("a cash-in: no fee, the commission (from the ledger's TREASURY) to the agent's commission account, the agent in the metadata, no cap unless given", () => {
    const ctx = executionContext(intent('CASH_IN', 'CASH_IN'), charged(0, 50), 'user-agent');
    expect(ctx.fee).toBeUndefined();
    expect(ctx.commission).toEqual({ amount: 50, accountId: 'commission-account' });
    expect(ctx).not.toHaveProperty('payeeBalanceCap');
    expect(ctx.metadata).toMatchObject({ typeCode: 'CASH_IN_AGENT', agentId: 'agent-id', extra: { agentCode: 'AG00000001' } });
  });

  it('a cash-out: fee from the customer and the commission; a merchant payment has its own type code', () => {
    const out = executionContext(intent('CASH_OUT', 'CASH_OUT'), charged(200, 80), 'user-agent');
    expect(out).toMatchObject({ sourceAccountId: 'account-alice', destinationAccountId: 'account-agent', fee: { amount: 200 } });
    expect(out.commission?.amount).toBe(80);
    expect(executionContext(intent('TRANSFER', 'MERCHANT_PAYMENT'), charged(0, 0), 'user-alice').metadata?.typeCode).toBe(
      'MERCHANT_PAYMENT',
    );
  });
});
