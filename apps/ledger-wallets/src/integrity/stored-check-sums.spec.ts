import { storedAccountGaps, storedCurrencyTotals } from './stored-check-sums';

describe('sums of a stored integrity check', () => {
  it('a check stored with JSON numbers is read with decimal strings, digit for digit', () => {
    expect(storedCurrencyTotals([{ currency: 'XAF', storedTotal: 9_007_199_254_740_991, ledgerTotal: 0, gap: -50 }])).toEqual([
      { currency: 'XAF', storedTotal: '9007199254740991', ledgerTotal: '0', gap: '-50' },
    ]);
    const gap = { accountId: 'a', currency: 'XOF', accountType: 'customer', stored: 550, available: 550, frozen: 0 };
    expect(storedAccountGaps([{ ...gap, recomputed: 500, gap: 50 }])).toEqual([{ ...gap, recomputed: '500', gap: '50' }]);
  });

  it('a check stored with decimal strings is read as it is, beyond 2^53 − 1 included', () => {
    const totals = [{ currency: 'XAF', storedTotal: '18014398509479982', ledgerTotal: '0', gap: '18014398509479982' }];
    expect(storedCurrencyTotals(totals)).toEqual(totals);
    const gaps = [
      {
        accountId: 'a',
        currency: 'XAF',
        accountType: 'suspense',
        stored: 1,
        recomputed: '-9007199254740993',
        gap: '9007199254740994',
        available: 1,
        frozen: 0,
      },
    ];
    expect(storedAccountGaps(gaps)).toEqual(gaps);
  });
});
