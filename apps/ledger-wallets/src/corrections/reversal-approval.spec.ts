import { balanceDeltas, pairEntries } from '../execution/double-entry';
import { inverseOf } from './reversal-approval';
import { largestAccountMovement } from './reversal-target';

describe('the inverse of a transaction', () => {
  const A = '00000000-0000-4000-8000-00000000000a';
  const M = '00000000-0000-4000-8000-00000000000b';
  const FEE = '00000000-0000-4000-8000-0000000000fe';
  const original = pairEntries([
    { from: A, to: M, amount: 5_000 },
    { from: A, to: FEE, amount: 150 },
  ]).map((l) => ({
    id: l.id,
    account_id: l.account_id,
    kind: l.kind,
    amount: String(l.amount),
    counterparty_ledger_id: l.counterparty_id,
  }));

  it('flips every entry, keeps accounts and amounts, and pairs the new entries like the old ones', () => {
    const inverse = inverseOf(original);
    expect(inverse.map((l) => `${l.account_id} ${l.kind} ${l.amount}`).sort()).toEqual(
      original.map((e) => `${e.account_id} ${e.kind === 'DEBIT' ? 'CREDIT' : 'DEBIT'} ${e.amount}`).sort(),
    );
    for (const leg of inverse) {
      expect(original.some((e) => e.id === leg.id)).toBe(false);
      const other = inverse.find((l) => l.id === leg.counterparty_id)!;
      expect([other.counterparty_id, other.amount, other.kind === leg.kind]).toEqual([leg.id, leg.amount, false]);
    }
    // Every account gets back exactly what the original moved.
    expect(balanceDeltas(inverse).map((d) => [d.id, d.balance])).toEqual(
      [
        [A, 5_150],
        [M, -5_000],
        [FEE, -150],
      ].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
    );
  });

  it("the largest movement of one account is the payer's amount + fee back, not the transaction's amount", () => {
    expect(largestAccountMovement(inverseOf(original))).toBe(5_150);
    expect(largestAccountMovement([])).toBe(0);
  });

  it('refuses entries paired outside their transaction (500 LEDGER_INTEGRITY_VIOLATION)', () => {
    const broken = [{ ...original[0], counterparty_ledger_id: '00000000-0000-4000-8000-000000000099' }, ...original.slice(1)];
    expect(() => inverseOf(broken)).toThrow(expect.objectContaining({ code: 'LEDGER_INTEGRITY_VIOLATION' }));
  });
});
