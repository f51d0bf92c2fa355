import fc from 'fast-check';
import { bandsErrors } from './pricing-document';
import { bandFor, charge } from './grid-math';

describe('grid math', () => {
  const flat = { from: 1, to: null, fixed: 50, rateBps: 0 };
  const pct = { from: 1, to: null, fixed: 0, rateBps: 100 };

  it('adds the fixed part and the basis-point part', () => {
    expect(charge(flat, 12_345, 'ceil')).toBe(50);
    expect(charge(pct, 10_000, 'ceil')).toBe(100);
    expect(charge({ from: 1, to: null, fixed: 250, rateBps: 50 }, 50_001, 'ceil')).toBe(501); // 250 + ceil(250.005)
  });

  it('rounds fees up and commissions down, only when there is a remainder', () => {
    // 1 % of 10 001 = 100.01
    expect(charge(pct, 10_001, 'ceil')).toBe(101);
    expect(charge(pct, 10_001, 'floor')).toBe(100);
    expect(charge(pct, 10_100, 'ceil')).toBe(101);
    expect(charge(pct, 10_100, 'floor')).toBe(101);
    // 1 % of 1 franc
    expect(charge(pct, 1, 'ceil')).toBe(1);
    expect(charge(pct, 1, 'floor')).toBe(0);
  });

  it('stays exact where floating point would not (amount × rate above 2^53)', () => {
    const big = Number.MAX_SAFE_INTEGER; // 9 007 199 254 740 991
    // 3 bps of it = 2 702 159 776 422.2973 → ceil 2 702 159 776 423
    expect(charge({ from: 1, to: null, fixed: 0, rateBps: 3 }, big, 'ceil')).toBe(2_702_159_776_423);
    expect(charge({ from: 1, to: null, fixed: 0, rateBps: 10_000 }, big, 'floor')).toBe(big);
    expect(() => charge({ from: 1, to: null, fixed: 1, rateBps: 10_000 }, big, 'floor')).toThrow(RangeError);
  });

  it('matches a rational model for any amount and rate (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (amount, rateBps, fixed) => {
          const band = { from: 1, to: null, fixed, rateBps };
          const exact = BigInt(amount) * BigInt(rateBps);
          // A charge above 2^53 - 1 cannot be a franc amount: it must throw, never round silently.
          const ceilTotal = BigInt(fixed) + (exact + 9_999n) / 10_000n;
          const floorTotal = BigInt(fixed) + exact / 10_000n;
          const max = BigInt(Number.MAX_SAFE_INTEGER);
          if (floorTotal > max) {
            expect(() => charge(band, amount, 'floor')).toThrow(RangeError);
          }
          if (ceilTotal > max) {
            expect(() => charge(band, amount, 'ceil')).toThrow(RangeError);
            return;
          }
          const up = charge(band, amount, 'ceil');
          const down = charge(band, amount, 'floor');
          // down ≤ exact/10000 ≤ up, and they differ by at most one franc
          expect(BigInt(down - fixed) * 10_000n <= exact).toBe(true);
          expect(BigInt(up - fixed) * 10_000n >= exact).toBe(true);
          expect(up - down).toBe(exact % 10_000n === 0n ? 0 : 1);
        },
      ),
    );
  });

  it('finds the single band of an amount, boundaries included', () => {
    const bands = [
      { from: 1, to: 5_000, fixed: 50, rateBps: 0 },
      { from: 5_001, to: 50_000, fixed: 0, rateBps: 100 },
      { from: 50_001, to: null, fixed: 250, rateBps: 50 },
    ];
    expect(bandsErrors(bands, 'b')).toEqual([]);
    expect(bandFor(bands, 1)).toBe(bands[0]);
    expect(bandFor(bands, 5_000)).toBe(bands[0]);
    expect(bandFor(bands, 5_001)).toBe(bands[1]);
    expect(bandFor(bands, 50_000)).toBe(bands[1]);
    expect(bandFor(bands, 50_001)).toBe(bands[2]);
    expect(bandFor(bands, Number.MAX_SAFE_INTEGER)).toBe(bands[2]);
  });

  it('rejects grids with a gap, an overlap, a bad start, an inverted band or a closed end', () => {
    const codes = (bands: Array<{ from: number; to: number | null; fixed: number; rateBps: number }>) =>
      bandsErrors(bands, 'b').map((e) => `${e.field}:${e.code}`);
    const band = (from: number, to: number | null) => ({ from, to, fixed: 0, rateBps: 0 });
    expect(codes([band(1, 10), band(12, null)])).toEqual(['b[1].from:BANDS_NOT_CONTIGUOUS']);
    expect(codes([band(1, 10), band(10, null)])).toEqual(['b[1].from:BANDS_NOT_CONTIGUOUS']);
    expect(codes([band(2, null)])).toEqual(['b[0].from:BANDS_NOT_CONTIGUOUS']);
    expect(codes([band(1, 10), band(11, 5), band(6, null)])).toEqual(['b[1].to:BAND_RANGE_INVALID']);
    expect(codes([band(1, 10)])).toEqual(['b[0].to:BANDS_NOT_OPEN_ENDED']);
    expect(codes([band(1, null), band(2, null)])).toEqual(['b[1].from:BANDS_NOT_CONTIGUOUS']);
  });
});
