import { AppException } from '@mm/errors';
import type { LimitsDocument } from './limits-document';
import { limitsDocumentErrors } from './limits-document';
import { balanceCap, firstRefusal, tierLimits } from './limit-rules';
import type { LimitCheck } from './limits.types';

const doc: LimitsDocument = {
  timezone: 'Africa/Douala',
  holdSeconds: 300,
  amounts: ['XAF', 'XOF'].flatMap((currency) =>
    (['TRANSFER', 'CASH_IN', 'CASH_OUT', 'MERCHANT_PAYMENT'] as const).map((type) => ({
      type,
      currency: currency as 'XAF',
      min: 100,
      max: 1_000_000,
    })),
  ),
  tiers: [
    { tier: 'TIER_1', currency: 'XAF', singleMax: 100_000, dailyMax: 200_000, monthlyMax: 500_000, balanceMax: 300_000 },
    { tier: 'TIER_2', currency: 'XAF', singleMax: 500_000, dailyMax: 1_000_000, monthlyMax: 5_000_000, balanceMax: 2_000_000 },
    { tier: 'TIER_1', currency: 'XOF', singleMax: 100_000, dailyMax: 200_000, monthlyMax: 500_000, balanceMax: 300_000 },
  ],
  agents: [
    { currency: 'XAF', perOperationMax: 400_000, dailyMax: 1_000_000 },
    { currency: 'XOF', perOperationMax: 400_000, dailyMax: 1_000_000 },
  ],
};

const base = { operationId: 'op', type: 'TRANSFER', currency: 'XAF' } as const;
const payer = { userId: 'u1', kycTier: 'TIER_1' };

function refusal(
  check: Omit<LimitCheck, 'operationId' | 'type' | 'currency'> & Partial<LimitCheck>,
  usage = {},
): [string, string] | undefined {
  const error = firstRefusal(doc, { ...base, ...check } as LimitCheck, usage);
  if (!error) return undefined;
  expect(error).toBeInstanceOf(AppException);
  return [error.code, error.details?.headers?.['X-Limit-Allowed'] ?? ''];
}

describe('limit rules: each boundary at, below and above', () => {
  it('the defaults of the test document are themselves valid', () => {
    expect(limitsDocumentErrors(doc)).toEqual([]);
  });

  it('amount bounds of the type', () => {
    expect(refusal({ amount: 99 })).toEqual(['AMOUNT_BELOW_MINIMUM', '100']);
    expect(refusal({ amount: 100 })).toBeUndefined();
    expect(refusal({ amount: 1_000_000 })).toBeUndefined();
    expect(refusal({ amount: 1_000_001 })).toEqual(['AMOUNT_ABOVE_MAXIMUM', '1000000']);
  });

  it('single-operation limit of the payer tier', () => {
    expect(refusal({ amount: 99_999, payer })).toBeUndefined();
    expect(refusal({ amount: 100_000, payer })).toBeUndefined();
    expect(refusal({ amount: 100_001, payer })).toEqual(['LIMIT_SINGLE_OPERATION_EXCEEDED', '100000']);
    expect(refusal({ amount: 100_001, payer: { userId: 'u1', kycTier: 'TIER_2' } })).toBeUndefined();
  });

  // The payer's own request (initiatorUserId u1) is told the room left.
  const own = { payer, initiatorUserId: 'u1' };

  it('daily room: used + amount may reach the limit, not pass it', () => {
    const usage = { payer: { day: 150_000, month: 150_000 } };
    expect(refusal({ amount: 49_999, ...own }, usage)).toBeUndefined();
    expect(refusal({ amount: 50_000, ...own }, usage)).toBeUndefined();
    expect(refusal({ amount: 50_001, ...own }, usage)).toEqual(['LIMIT_DAILY_EXCEEDED', '50000']);
  });

  it('monthly room', () => {
    const usage = { payer: { day: 0, month: 450_000 } };
    expect(refusal({ amount: 50_000, ...own }, usage)).toBeUndefined();
    expect(refusal({ amount: 50_001, ...own }, usage)).toEqual(['LIMIT_MONTHLY_EXCEEDED', '50000']);
    // nothing left: the allowed amount is 0, never negative
    expect(refusal({ amount: 100, ...own }, { payer: { day: 0, month: 600_000 } })).toEqual(['LIMIT_MONTHLY_EXCEEDED', '0']);
  });

  it("daily and monthly room refused to anyone but the payer (an agent's cash-out): same code, no amount anywhere", () => {
    for (const [code, usage] of [
      ['LIMIT_DAILY_EXCEEDED', { payer: { day: 150_000, month: 150_000 } }],
      ['LIMIT_MONTHLY_EXCEEDED', { payer: { day: 0, month: 450_000 } }],
    ] as const) {
      for (const initiatorUserId of ['agent-1', undefined]) {
        const error = firstRefusal(doc, { ...base, type: 'CASH_OUT', amount: 50_001, payer, initiatorUserId }, usage);
        expect(error?.code).toBe(code);
        expect(error?.details?.headers).toBeUndefined();
        expect(error?.message).not.toMatch(/\d/);
      }
    }
  });

  it('the recipient balance cap is not judged here: the ledger checks the figure balanceCap gives it', () => {
    const payee = { userId: 'u2', kycTier: 'TIER_1' };
    expect(refusal({ amount: 250_000, payee, initiatorUserId: 'u2' })).toBeUndefined();
    expect(balanceCap(doc, { ...base, type: 'CASH_IN', amount: 1, payee })).toBe(300_000);
    expect(balanceCap(doc, { ...base, type: 'CASH_IN', amount: 1, payee: { userId: 'u2', kycTier: 'NO_SUCH_TIER' } })).toBe(300_000);
    expect(balanceCap(doc, { ...base, type: 'MERCHANT_PAYMENT', amount: 1 })).toBeUndefined();
  });

  it('agent ceilings per operation and per day', () => {
    const agent = { agentId: 'a1' };
    expect(refusal({ type: 'CASH_IN', amount: 400_000, agent })).toBeUndefined();
    expect(refusal({ type: 'CASH_IN', amount: 400_001, agent })).toEqual(['AGENT_OPERATION_CEILING_EXCEEDED', '400000']);
    const usage = { agent: { day: 700_000, month: 700_000 } };
    expect(refusal({ type: 'CASH_OUT', amount: 300_000, agent }, usage)).toBeUndefined();
    expect(refusal({ type: 'CASH_OUT', amount: 300_001, agent }, usage)).toEqual(['AGENT_DAILY_CEILING_EXCEEDED', '300000']);
  });

  it('names the amount in the message and the currency in a header', () => {
    const error = firstRefusal(doc, { ...base, currency: 'XOF', amount: 100_001, payer }, {});
    expect(error?.message).toContain('100000 XOF');
    expect(error?.details?.headers?.['X-Limit-Currency']).toBe('XOF');
  });

  it('an unknown tier gets the least verified tier of the currency', () => {
    expect(tierLimits(doc, 'XAF', 'TIER_9')).toEqual({ limits: doc.tiers[0], known: false });
    expect(refusal({ amount: 100_001, payer: { userId: 'u1', kycTier: 'GOLD' } })).toEqual(['LIMIT_SINGLE_OPERATION_EXCEEDED', '100000']);
  });

  it('rejects limits documents that are incomplete, duplicated or out of order', () => {
    const bad: LimitsDocument = {
      ...doc,
      timezone: 'Mars/Olympus',
      amounts: [...doc.amounts.slice(1), { ...doc.amounts[1] }, { ...doc.amounts[2], max: 1 }],
      tiers: [{ ...doc.tiers[0], dailyMax: 50_000 }, doc.tiers[0]],
      agents: [{ currency: 'XAF', perOperationMax: 10, dailyMax: 5 }],
    };
    const codes = limitsDocumentErrors(bad).map((e) => `${e.field}:${e.code}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'timezone:INVALID_TIMEZONE',
        'amounts:GRID_MISSING',
        `amounts[${doc.amounts.length - 1}]:GRID_DUPLICATE`,
        `amounts[${doc.amounts.length}].max:MAX_BELOW_MIN`,
        'tiers[0]:LIMITS_NOT_ORDERED',
        'tiers[1]:GRID_DUPLICATE',
        'tiers:GRID_MISSING',
        'agents[0].dailyMax:MAX_BELOW_MIN',
        'agents:GRID_MISSING',
      ]),
    );
  });
});
