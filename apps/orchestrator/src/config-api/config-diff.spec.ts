import { diffDocuments } from './config-diff';

describe('diffDocuments', () => {
  it('lists each changed leaf with its path, before and after', () => {
    const before = { fees: { TRANSFER: { XAF: [{ upTo: 1000, bps: 100 }] } }, cap: 5, gone: true };
    const after = {
      fees: {
        TRANSFER: {
          XAF: [
            { upTo: 1000, bps: 150 },
            { upTo: null, bps: 50 },
          ],
        },
      },
      cap: 5,
      added: 'x',
    };
    expect(diffDocuments(before, after)).toEqual([
      { path: 'added', before: null, after: 'x' },
      { path: 'fees.TRANSFER.XAF[0].bps', before: 100, after: 150 },
      { path: 'fees.TRANSFER.XAF[1]', before: null, after: { upTo: null, bps: 50 } },
      { path: 'gone', before: true, after: null },
    ]);
  });

  it('finds nothing between equal documents', () => {
    expect(diffDocuments({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });
});
