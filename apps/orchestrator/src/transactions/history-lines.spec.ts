import type { AppRole } from '@mm/contracts';
import type { AuthUser } from '../access/permissions';
import type { PaymentIntentRecord } from '../intents/payment-intent.types';
import { adjustmentLine, paymentLine } from './history-lines';
import type { LedgerAdjustment } from './ledger-statements.client';

const user = (userId: string, role: AppRole = 'CUSTOMER'): AuthUser => ({
  userId,
  role,
  sessionId: 's',
  permissions: [],
  accessToken: 't',
});
const party = (userId: string) => ({
  userId,
  customerId: `c-${userId}`,
  role: 'CUSTOMER' as const,
  phone: '+237690000001',
  displayName: userId,
  kycTier: 'TIER_1',
  accountId: `a-${userId}`,
});

/** A cash-in of 50 000 by agent `kofi` to `awa`: the agent's float pays, the agent earns 250. */
const cashIn = {
  id: '00000000-0000-4000-8000-000000000001',
  ledgerIntentId: '00000000-0000-4000-8000-000000000002',
  transactionId: '00000000-0000-4000-8000-000000000003',
  referenceId: 'MMPTX2611220A1B2C3',
  type: 'CASH_IN',
  operationType: 'CASH_IN',
  amount: 50_000,
  chargedFee: 0,
  chargedCommission: 250,
  currency: 'XAF',
  description: null,
  payer: party('kofi'),
  payee: party('awa'),
  agent: { ...party('kofi'), agentId: 'ag', agentCode: 'AG0001', masterAgentUserId: 'boss', commissionAccountId: 'com' },
  completedAt: '2026-11-22T10:00:00.000Z',
} as unknown as PaymentIntentRecord;

describe('history lines', () => {
  it("a payment's balanceChange is what it did to the caller's own accounts; null for a reader who is not a party", () => {
    expect(paymentLine(cashIn, user('kofi', 'AGENT'), null)).toMatchObject({
      kind: 'PAYMENT',
      direction: 'DEBIT',
      balanceChange: -49_750,
      commission: 250,
    });
    expect(paymentLine(cashIn, user('awa'), null)).toMatchObject({ direction: 'CREDIT', balanceChange: 50_000, commission: null });
    expect(paymentLine(cashIn, user('boss', 'MASTER_AGENT'), null)).toMatchObject({
      direction: null,
      balanceChange: null,
      commission: 250,
    });
    expect(paymentLine(cashIn, user('staff', 'SUPPORT'), 'MMPTX2611230Z9Y8X7')).toMatchObject({
      balanceChange: null,
      reversedBy: 'MMPTX2611230Z9Y8X7',
    });
  });

  const reversal: LedgerAdjustment = {
    transactionId: '00000000-0000-4000-8000-000000000009',
    referenceId: 'MMPTX2611230Z9Y8X7',
    kind: 'REVERSAL',
    reversalOf: { transactionId: cashIn.transactionId!, referenceId: cashIn.referenceId! },
    currency: 'XAF',
    amount: 50_000,
    fee: 0,
    change: 49_750,
    reason: 'wrong customer',
    completedAt: '2026-11-23T08:00:00.000Z',
  };

  it("a reversal reads as the payment it undoes, in the other direction, with the ledger's change", () => {
    expect(adjustmentLine(reversal, cashIn, user('kofi', 'AGENT'))).toMatchObject({
      kind: 'REVERSAL',
      referenceId: reversal.referenceId,
      transactionId: reversal.transactionId,
      intentId: cashIn.ledgerIntentId,
      type: 'CASH_IN',
      direction: 'CREDIT',
      amount: 50_000,
      balanceChange: 49_750,
      reverses: cashIn.referenceId,
      reversedBy: null,
      completedAt: reversal.completedAt,
    });
  });

  it('a correction has no parties; its direction and amount follow the change', () => {
    const correction: LedgerAdjustment = { ...reversal, kind: 'CORRECTION', reversalOf: null, change: -1_200, reason: 'duplicate credit' };
    expect(adjustmentLine(correction, undefined, user('awa'))).toEqual(
      expect.objectContaining({
        kind: 'CORRECTION',
        type: 'ADJUSTMENT',
        operationType: 'ADJUSTMENT',
        intentId: null,
        direction: 'DEBIT',
        amount: 1_200,
        total: 1_200,
        balanceChange: -1_200,
        description: 'duplicate credit',
        payer: null,
        payee: null,
        agent: null,
        reverses: null,
      }),
    );
  });
});
