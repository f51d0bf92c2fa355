import { randomUUID } from 'node:crypto';
import { safeSum } from '../db/money';

export interface EntryLeg {
  id: string;
  account_id: string;
  kind: 'DEBIT' | 'CREDIT';
  amount: number;
  /**
   * the paired entry: every DEBIT has a CREDIT of the same amount on another account
   * (docs/ledger.md "Transactions and entries")
   */
  counterparty_id: string;
}

export interface BalanceDelta {
  id: string;
  balance: number;
  available: number;
  frozen: number;
}

export interface Posting {
  /** account debited */
  from: string;
  /** account credited */
  to: string;
  amount: number;
}

/** A DEBIT on `from` and a CREDIT on `to`, each referencing the other. Zero amounts produce nothing. */
export function pairEntries(postings: Posting[]): EntryLeg[] {
  const legs: EntryLeg[] = [];
  for (const p of postings) {
    if (p.amount <= 0) continue;
    const debit = randomUUID();
    const credit = randomUUID();
    legs.push({ id: debit, account_id: p.from, kind: 'DEBIT', amount: p.amount, counterparty_id: credit });
    legs.push({ id: credit, account_id: p.to, kind: 'CREDIT', amount: p.amount, counterparty_id: debit });
  }
  return legs;
}

/**
 * Balance changes implied by the entries (credits add, debits subtract, both on balance and
 * available), plus `release`: an amount moved from frozen back to available on an account
 * before the entries apply (the intent's hold on its source account).
 */
export function balanceDeltas(legs: EntryLeg[], release?: { accountId: string; amount: number }): BalanceDelta[] {
  const byId = new Map<string, BalanceDelta>();
  const get = (id: string) => byId.get(id) ?? byId.set(id, { id, balance: 0, available: 0, frozen: 0 }).get(id)!;
  for (const leg of legs) {
    const d = get(leg.account_id);
    const signed = leg.kind === 'CREDIT' ? leg.amount : -leg.amount;
    // Exact or refused: an account touched by several legs must not sum past 2^53 − 1.
    d.balance = safeSum(d.balance, signed);
    d.available = safeSum(d.available, signed);
  }
  if (release && release.amount > 0) {
    const d = get(release.accountId);
    d.available = safeSum(d.available, release.amount);
    d.frozen = safeSum(d.frozen, -release.amount);
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}
