import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';
import { type Currency, SUPPORTED_CURRENCIES } from '@mm/contracts';

/**
 * What a fee, a limit or a risk rule is about. The three intent types (docs/mobile-api.md "Who starts what"), plus a merchant
 * payment: technically a TRANSFER to a merchant, priced and bounded on its own (customers
 * usually pay no fee to pay a shop). The intent flow maps a TRANSFER to a merchant onto it.
 */
export const OPERATION_TYPES = ['TRANSFER', 'CASH_IN', 'CASH_OUT', 'MERCHANT_PAYMENT'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

export const CURRENCIES: readonly Currency[] = SUPPORTED_CURRENCIES;
export type { Currency };

/** An integer amount in the smallest unit, within the safe integer range (field code INVALID_AMOUNT). */
export function IsMoney(min = 0): PropertyDecorator {
  return applyDecorators(
    IsInt({ context: { code: 'INVALID_AMOUNT' } }),
    Min(min, { context: { code: 'INVALID_AMOUNT' } }),
    Max(Number.MAX_SAFE_INTEGER, { context: { code: 'INVALID_AMOUNT' } }),
  );
}

/** bigint columns arrive from pg as strings: back to exact JS integers, refusing anything unsafe. */
export function toSafeInteger(value: string | number | bigint): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`integer out of the safe range: ${String(value)}`);
  return n;
}

/** One row per operation type and currency, in list order (complete grids and bounds, as the server requires). */
export const everyTypeAndCurrency = <T>(row: (type: OperationType, currency: Currency) => T): T[] =>
  OPERATION_TYPES.flatMap((type) => CURRENCIES.map((currency) => row(type, currency)));
