import fc from 'fast-check';
import type { AmountBounds } from '../limits/limits-document';
import { amountBoundsCommissionErrors, commissionBoundsErrors, largestCommission } from './commission-rules';
import { charge } from './grid-math';
import type { Grid, GridBand, PricingDocument } from './pricing-document';

const CEILING = 100_000;
const cashIn = (bands: GridBand[]): Grid => ({ type: 'CASH_IN', currency: 'XAF', bands });
const doc = (commissions: Grid[]): PricingDocument => ({ quoteValiditySeconds: 900, fees: [], commissions });
const range = (min: number, max: number): AmountBounds[] => [{ type: 'CASH_IN', currency: 'XAF', min, max }];
const codes = (errors: Array<{ field: string; code: string }>) => errors.map((e) => `${e.field}:${e.code}`);
const gridCodes = (grid: Grid, min = 1, max = 2_000_000, ceiling = CEILING) =>
  codes(commissionBoundsErrors(doc([grid]), range(min, max), ceiling));

describe('commission grid rules', () => {
  it('refuses a band whose fixed part exceeds its first allowed amount (COMMISSION_ABOVE_AMOUNT)', () => {
    const fixed40 = cashIn([
      { from: 1, to: 5_000, fixed: 40, rateBps: 0 },
      { from: 5_001, to: null, fixed: 0, rateBps: 80 },
    ]);
    // 1 XAF would earn 40: the ledger would refuse the confirm, after the customer's PIN and OTP
    expect(gridCodes(fixed40, 1)).toEqual(['commissions[0].bands[0]:COMMISSION_ABOVE_AMOUNT']);
    expect(gridCodes(fixed40, 39)).toEqual(['commissions[0].bands[0]:COMMISSION_ABOVE_AMOUNT']);
    // the limits never let an amount below 40 be priced: no amount earns more than itself
    expect(gridCodes(fixed40, 40)).toEqual([]);
    // a full rate plus any fixed part pays more than the amount everywhere, a later band included
    const fullRate = cashIn([
      { from: 1, to: 999, fixed: 0, rateBps: 100 },
      { from: 1_000, to: null, fixed: 1, rateBps: 10_000 },
    ]);
    expect(gridCodes(fullRate, 1, 2_000_000, Number.MAX_SAFE_INTEGER)).toEqual(['commissions[0].bands[1]:COMMISSION_ABOVE_AMOUNT']);
    // a commission too large for a safe integer is refused on both counts, not a RangeError (a 500)
    const huge = cashIn([{ from: 1, to: null, fixed: Number.MAX_SAFE_INTEGER, rateBps: 10_000 }]);
    expect(gridCodes(huge, 1, 10, Number.MAX_SAFE_INTEGER)).toEqual([
      'commissions[0].bands[0]:COMMISSION_ABOVE_AMOUNT',
      'commissions[0].bands[0]:COMMISSION_ABOVE_CEILING',
    ]);
  });

  it('checks the whole band: in an accepted grid no allowed amount earns more than itself (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (to, fixed, rateBps, min, span) => {
          const grid = cashIn([
            { from: 1, to, fixed, rateBps },
            { from: to + 1, to: null, fixed: 0, rateBps: 50 },
          ]);
          const max = min + span;
          const accepted = !gridCodes(grid, min, max, Number.MAX_SAFE_INTEGER).some((c) => c.endsWith('COMMISSION_ABOVE_AMOUNT'));
          // an exhaustive look at the first band's allowed amounts would be slow: its ends and a middle amount
          const samples = [min, Math.min(to, max), Math.floor((min + Math.min(to, max)) / 2)].filter((a) => a >= min && a <= to);
          const overpaid = samples.some((a) => charge(grid.bands[0], a, 'floor') > a);
          if (accepted) expect(overpaid).toBe(false);
          else expect(charge(grid.bands[0], Math.max(1, min), 'floor')).toBeGreaterThan(Math.max(1, min));
        },
      ),
    );
  });

  it('finds the largest commission at the end of a band the limits allow, not past it', () => {
    const grid = cashIn([
      { from: 1, to: 50_000, fixed: 0, rateBps: 100 }, // 500 at 50 000
      { from: 50_001, to: null, fixed: 0, rateBps: 50 }, // cheaper above
    ]);
    expect(largestCommission(grid, 1, 60_000)).toEqual({ commission: 500, amount: 50_000, band: 0 });
    expect(largestCommission(grid, 1, 2_000_000)).toEqual({ commission: 10_000, amount: 2_000_000, band: 1 });
    expect(largestCommission(grid, 1, 10_000)).toEqual({ commission: 100, amount: 10_000, band: 0 });
  });

  it('refuses a grid that could pay more than the ceiling on one operation (COMMISSION_ABOVE_CEILING)', () => {
    const half = cashIn([{ from: 1, to: null, fixed: 0, rateBps: 5_000 }]); // 50 %
    expect(gridCodes(half, 1, 200_000)).toEqual([]); // 100 000 at most
    expect(gridCodes(half, 1, 200_002)).toEqual(['commissions[0].bands[0]:COMMISSION_ABOVE_CEILING']);
    // no amount bounds for the type: an open proportional band has no bound
    expect(codes(commissionBoundsErrors(doc([half]), [], CEILING))).toEqual(['commissions[0].bands[0]:COMMISSION_ABOVE_CEILING']);
    // a flat commission is bounded whatever the amounts
    const flat = cashIn([{ from: 1, to: null, fixed: CEILING, rateBps: 0 }]);
    expect(codes(commissionBoundsErrors(doc([flat]), range(CEILING, Number.MAX_SAFE_INTEGER), CEILING))).toEqual([]);
  });

  it('refuses amount bounds that would let the commission grid in force break either rule', () => {
    const grid = cashIn([
      { from: 1, to: 5_000, fixed: 40, rateBps: 0 },
      { from: 5_001, to: null, fixed: 0, rateBps: 5_000 },
    ]);
    expect(codes(amountBoundsCommissionErrors(range(500, 200_000), doc([grid]), CEILING))).toEqual([]);
    expect(codes(amountBoundsCommissionErrors(range(10, 200_000), doc([grid]), CEILING))).toEqual([
      'amounts[0].min:COMMISSION_ABOVE_AMOUNT',
    ]);
    expect(codes(amountBoundsCommissionErrors(range(500, 200_002), doc([grid]), CEILING))).toEqual([
      'amounts[0].max:COMMISSION_ABOVE_CEILING',
    ]);
    // a type without a commission grid pays nothing, whatever its bounds
    expect(codes(amountBoundsCommissionErrors(range(1, Number.MAX_SAFE_INTEGER), doc([]), 0))).toEqual([]);
  });
});
