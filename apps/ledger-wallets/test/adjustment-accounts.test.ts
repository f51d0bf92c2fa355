import { fundedAccount, transfer } from './ledger-harness';
import { reverseApproved, useOperatorLedger } from './operators';

/**
 * ledger.adjustment_accounts, the index of which accounts each ADJUSTMENT transaction touched, from
 * which a holder's statement reads its adjustments without reading its payments' entries
 * (docs/ledger.md "Statements: what moved a holder's accounts besides payments"). The database
 * keeps it: what it holds must be exactly what the entries say.
 */
describe('ledger: the adjustments of each account are indexed by the database', () => {
  const t = useOperatorLedger();

  /** (account, transaction) pairs of the index, and of the ADJUSTMENT entries it stands for. */
  const pairs = async () => {
    const indexed = await t.h.admin.query<{ pair: string }>(
      `SELECT account_id || ' ' || transaction_id AS pair FROM ledger.adjustment_accounts ORDER BY 1`,
    );
    const entries = await t.h.admin.query<{ pair: string }>(
      `SELECT DISTINCT l.account_id || ' ' || l.transaction_id AS pair
       FROM ledger.ledgers l JOIN ledger.transactions x ON x.id = l.transaction_id WHERE x.type = 'ADJUSTMENT' ORDER BY 1`,
    );
    return { indexed: indexed.rows.map((r) => r.pair), entries: entries.rows.map((r) => r.pair) };
  };

  it('records every account an adjustment touches (funding, a reversal), no payment, and nothing else', async () => {
    const payer = await fundedAccount(t.h, 20_000);
    const payee = await fundedAccount(t.h, 0);
    const paid = await transfer(t.h, payer, payee, 10_000, 100);
    expect(paid.status).toBe(200);
    const approved = { body: await reverseApproved(t, paid.body.referenceId) };

    const of = async (account: string) =>
      (
        await t.h.admin.query<{ transaction_id: string }>(
          `SELECT transaction_id FROM ledger.adjustment_accounts WHERE account_id = $1 ORDER BY transaction_id`,
          [account],
        )
      ).rows.map((r) => r.transaction_id);
    // The payee was never funded: only the reversal. The payer: its funding and the reversal.
    expect(await of(payee)).toEqual([approved.body.transactionId]);
    expect(await of(payer)).toHaveLength(2);
    expect(await of(payer)).toContain(approved.body.transactionId);
    const { indexed, entries } = await pairs();
    expect(indexed).toEqual(entries);
    expect(indexed.some((p) => p.endsWith(paid.body.transactionId))).toBe(false);
  });

  it('is append-only, like the entries it indexes', async () => {
    await fundedAccount(t.h, 500);
    await expect(t.h.admin.query(`UPDATE ledger.adjustment_accounts SET account_id = account_id`)).rejects.toThrow(/append-only: UPDATE/);
    await expect(t.h.admin.query(`DELETE FROM ledger.adjustment_accounts`)).rejects.toThrow(/append-only: DELETE/);
    await expect(t.h.admin.query(`TRUNCATE ledger.adjustment_accounts`)).rejects.toThrow(/append-only: TRUNCATE/);
  });
});
