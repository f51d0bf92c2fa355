import type { GridBand } from './pricing-document';

const BPS_DENOMINATOR = 10_000n;

/** The band an amount falls in (bands tile [1, ∞) once validated); undefined only for a malformed grid. */
export function bandFor(bands: readonly GridBand[], amount: number): GridBand | undefined {
  return bands.find((band) => amount >= band.from && (band.to === null || amount <= band.to));
}

/**
 * `fixed + amount × rateBps / 10 000`, in exact integer arithmetic (BigInt: amount × rate can pass
 * 2^53 long before the result does). XAF and XOF have no minor unit, so a fractional franc must be
 * rounded: fees round UP (`ceil`: the platform never under-collects on a percentage, and a
 * fee is never 0 because of truncation), commissions round DOWN (`floor`: TREASURY never pays a
 * franc the grid did not promise). Throws if the result leaves the safe integer range.
 */
export function charge(band: GridBand, amount: number, rounding: 'ceil' | 'floor'): number {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new RangeError(`amount must be a positive safe integer, got ${amount}`);
  const product = BigInt(amount) * BigInt(band.rateBps);
  let proportional = product / BPS_DENOMINATOR;
  if (rounding === 'ceil' && product % BPS_DENOMINATOR !== 0n) proportional += 1n;
  const total = BigInt(band.fixed) + proportional;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('charge out of the safe integer range');
  return Number(total);
}
