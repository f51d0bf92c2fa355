import { balanceDeltas, pairEntries } from './double-entry';

describe('double entry', () => {
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  const FEE = '00000000-0000-4000-8000-0000000000fe';
  const TRE = '00000000-0000-4000-8000-000000000007';
  const COM = '00000000-0000-4000-8000-0000000000c0';

  it('pairs each debit with a credit of the same amount, linked both ways', () => {
    const legs = pairEntries([
      { from: A, to: B, amount: 1000 },
      { from: A, to: FEE, amount: 50 },
      { from: TRE, to: COM, amount: 20 },
    ]);
    expect(legs).toHaveLength(6);
    for (const leg of legs) {
      const other = legs.find((l) => l.id === leg.counterparty_id)!;
      expect(other.counterparty_id).toBe(leg.id);
      expect(other.amount).toBe(leg.amount);
      expect(other.kind).not.toBe(leg.kind);
    }
  });

  it('skips zero fees and commissions (2 entries for a plain transfer)', () => {
    expect(
      pairEntries([
        { from: A, to: B, amount: 5 },
        { from: A, to: FEE, amount: 0 },
      ]),
    ).toHaveLength(2);
  });

  it('nets balances to zero and releases the hold on the source', () => {
    const legs = pairEntries([
      { from: A, to: B, amount: 1000 },
      { from: A, to: FEE, amount: 50 },
    ]);
    const deltas = balanceDeltas(legs, { accountId: A, amount: 1050 });
    expect(deltas.reduce((s, d) => s + d.balance, 0)).toBe(0);
    expect(deltas.find((d) => d.id === A)).toEqual({ id: A, balance: -1050, available: 0, frozen: -1050 });
    expect(deltas.find((d) => d.id === B)).toEqual({ id: B, balance: 1000, available: 1000, frozen: 0 });
  });
});
