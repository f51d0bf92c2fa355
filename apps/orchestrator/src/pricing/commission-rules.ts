import type { FieldError } from '@mm/errors';
import type { AmountBounds } from '../limits/limits-document';
import { charge } from './grid-math';
import type { Grid, GridBand, PricingDocument } from './pricing-document';

/**
 * The bounds the ledger puts on every commission it pays (422 COMMISSION_OUT_OF_RANGE at confirm:
 * above the operation's amount, or above LEDGER_COMMISSION_MAX_PER_OPERATION), checked on the grids
 * themselves. A grid the ledger would refuse must never be in force: the orchestrator would quote the
 * commission at create and the operation would fail only after the customer's OTP and PIN.
 *
 * What a grid pays depends on the amounts it is used for, which the limits section bounds per type
 * and currency (`min`…`max`); amounts outside them are never priced.
 */

export interface CommissionFault {
  band: number;
  amount: number;
  commission: number;
}

/** A commission too large for a safe integer is above any bound: `Infinity` instead of a RangeError (a 500). */
function commissionAt(band: GridBand, amount: number): number {
  try {
    return charge(band, amount, 'floor');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * The first amount in [min, max] at which the grid pays more than the amount itself. Within a band
 * `commission(a) − a` never grows with `a` (the rate is at most 10 000 bps, i.e. 100 %, and the
 * commission is rounded down), so a band's worst amount is its first one the limits allow.
 */
export function commissionAboveAmount(grid: Grid, min: number, max: number): CommissionFault | undefined {
  for (const [k, band] of grid.bands.entries()) {
    if (band.from > max || (band.to !== null && band.to < min)) continue;
    const amount = Math.max(band.from, min);
    const commission = commissionAt(band, amount);
    if (commission > amount) return { band: k, amount, commission };
  }
  return undefined;
}

/**
 * The largest commission the grid pays on amounts in [min, max]. Within a band the commission grows
 * with the amount, so each band's worst amount is its last one the limits allow.
 */
export function largestCommission(grid: Grid, min: number, max: number): CommissionFault {
  let worst: CommissionFault = { band: -1, amount: 0, commission: 0 };
  grid.bands.forEach((band, k) => {
    if (band.from > max || (band.to !== null && band.to < min)) return;
    const amount = band.to === null ? max : Math.min(band.to, max);
    const commission = commissionAt(band, amount);
    if (commission > worst.commission) worst = { band: k, amount, commission };
  });
  return worst;
}

/** Amount range of a grid's type and currency; without an entry, any safe amount. */
function rangeOf(amounts: AmountBounds[], grid: Pick<Grid, 'type' | 'currency'>): { min: number; max: number } {
  const bounds = amounts.find((a) => a.type === grid.type && a.currency === grid.currency);
  return { min: bounds?.min ?? 1, max: bounds?.max ?? Number.MAX_SAFE_INTEGER };
}

/** Commission grids of a pricing document that would pay an allowed amount more than itself, or more than `ceiling`. */
export function commissionBoundsErrors(pricing: PricingDocument, amounts: AmountBounds[], ceiling: number): FieldError[] {
  const errors: FieldError[] = [];
  pricing.commissions.forEach((grid, i) => {
    const { min, max } = rangeOf(amounts, grid);
    const above = commissionAboveAmount(grid, min, max);
    if (above) {
      errors.push({
        field: `commissions[${i}].bands[${above.band}]`,
        code: 'COMMISSION_ABOVE_AMOUNT',
        message: `an amount of ${above.amount} would earn a commission of ${above.commission}, more than the amount itself`,
      });
    }
    const worst = largestCommission(grid, min, max);
    if (worst.commission > ceiling) {
      errors.push({
        field: `commissions[${i}].bands[${worst.band}]`,
        code: 'COMMISSION_ABOVE_CEILING',
        message: `an amount of ${worst.amount} would earn a commission of ${worst.commission}, above the maximum of ${ceiling} per operation`,
      });
    }
  });
  return errors;
}

/** The same rules seen from the limits: amount bounds that would let the commission grids in force break them. */
export function amountBoundsCommissionErrors(amounts: AmountBounds[], pricing: PricingDocument, ceiling: number): FieldError[] {
  const errors: FieldError[] = [];
  amounts.forEach((bounds, i) => {
    const grid = pricing.commissions.find((g) => g.type === bounds.type && g.currency === bounds.currency);
    if (!grid) return;
    const above = commissionAboveAmount(grid, bounds.min, bounds.max);
    if (above) {
      errors.push({
        field: `amounts[${i}].min`,
        code: 'COMMISSION_ABOVE_AMOUNT',
        message: `the ${bounds.type}/${bounds.currency} commission grid in force would pay ${above.commission} on an amount of ${above.amount}`,
      });
    }
    const worst = largestCommission(grid, bounds.min, bounds.max);
    if (worst.commission > ceiling) {
      errors.push({
        field: `amounts[${i}].max`,
        code: 'COMMISSION_ABOVE_CEILING',
        message: `the ${bounds.type}/${bounds.currency} commission grid in force would pay ${worst.commission} on an amount of ${worst.amount}, above the maximum of ${ceiling} per operation`,
      });
    }
  });
  return errors;
}
