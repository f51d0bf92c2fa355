import { CURRENCIES, OPERATION_TYPES } from '../pricing/operation-type';

/**
 * Whole request bodies for the configuration changes, shown in the OpenAPI document. A section is
 * only accepted complete (a grid or bounds for every operation type and currency, bands tiling
 * [1, ∞)), so an example assembled from per-field examples would be refused; these are built from
 * the same lists the server checks against, so they stay complete when a type or a currency is added.
 */
const every = <T>(row: (type: (typeof OPERATION_TYPES)[number], currency: (typeof CURRENCIES)[number]) => T): T[] =>
  OPERATION_TYPES.flatMap((type) => CURRENCIES.map((currency) => row(type, currency)));

export const PRICING_CHANGE_EXAMPLE = {
  baseVersion: 1,
  reason: 'Lower transfer fees from 1 March',
  document: {
    quoteValiditySeconds: 900,
    fees: every((type, currency) => ({
      type,
      currency,
      bands:
        type === 'MERCHANT_PAYMENT'
          ? [{ from: 1, to: null, fixed: 0, rateBps: 0 }]
          : [
              { from: 1, to: 5000, fixed: 50, rateBps: 0 },
              { from: 5001, to: null, fixed: 0, rateBps: 100 },
            ],
    })),
    commissions: CURRENCIES.flatMap((currency) =>
      (['CASH_IN', 'CASH_OUT'] as const).map((type) => ({ type, currency, bands: [{ from: 1, to: null, fixed: 0, rateBps: 50 }] })),
    ),
  },
};

export const LIMITS_CHANGE_EXAMPLE = {
  baseVersion: 1,
  reason: 'Higher cash-out ceiling for the holidays',
  document: {
    timezone: 'Africa/Douala',
    holdSeconds: 300,
    amounts: every((type, currency) => ({ type, currency, min: type === 'CASH_OUT' ? 500 : 100, max: 1_000_000 })),
    tiers: CURRENCIES.map((currency) => ({
      tier: 'TIER_1',
      currency,
      singleMax: 100_000,
      dailyMax: 200_000,
      monthlyMax: 1_000_000,
      balanceMax: 500_000,
    })),
    agents: CURRENCIES.map((currency) => ({ currency, perOperationMax: 2_000_000, dailyMax: 10_000_000 })),
  },
};

const perCurrency = (amount: number) => CURRENCIES.map((currency) => ({ currency, amount }));

export const MONITORING_CHANGE_EXAMPLE = {
  baseVersion: 1,
  reason: 'Structuring window widened to 48 hours after the March review',
  document: {
    structuring: { enabled: true, windowSeconds: 172_800, minOperations: 3, nearThresholdPercent: 10, thresholds: perCurrency(1_000_000) },
    passThrough: { enabled: true, windowSeconds: 3_600, minOutSharePercent: 80, minAmountIn: perCurrency(200_000) },
    dormantReactivation: { enabled: true, dormantDays: 90, minAmount: perCurrency(100_000) },
    agentCycling: { enabled: true, windowSeconds: 86_400, minCycles: 3 },
    fanIn: { enabled: true, windowSeconds: 86_400, minDistinctPayers: 15, includeMerchants: false },
    agentVelocity: { enabled: true, windowSeconds: 3_600, maxOperations: 100, maxAmount: perCurrency(5_000_000) },
  },
};
