import { Client } from 'pg';
import { type Harness, fundedAccount, startLedger, transfer } from './ledger-harness';

/** The last line of defence (spec 2 concurrency rule 5): raw SQL that bypasses the service is refused. */
describe('ledger: constraints and append-only triggers', () => {
  let h: Harness;
  let raw: Client;
  let txId: string;
  let entryId: string;
  let account: string;

  beforeAll(async () => {
    h = await startLedger();
    // The service's own role, writing straight to its tables.
    raw = new Client({ connectionString: h.db.urlFor('ledger-wallets') });
    await raw.connect();
    account = await fundedAccount(h, 1_000);
    const other = await fundedAccount(h, 0);
    const done = await transfer(h, account, other, 100);
    txId = done.body.transactionId;
    const entries = await raw.query(`SELECT id FROM ledger.ledgers WHERE transaction_id = $1 ORDER BY id LIMIT 1`, [txId]);
    entryId = entries.rows[0].id;
  });
  afterAll(async () => {
    await raw.end();
    await h.close();
  });

  it('rejects UPDATE on ledgers with the exact message', async () => {
    await expect(raw.query(`UPDATE ledger.ledgers SET amount = 1 WHERE id = $1`, [entryId])).rejects.toThrow(
      `ledger.ledgers is append-only: UPDATE operation forbidden on id ${entryId}`,
    );
  });

  it('rejects DELETE on ledgers, directly and through the transaction cascade', async () => {
    await expect(raw.query(`DELETE FROM ledger.ledgers WHERE id = $1`, [entryId])).rejects.toThrow(
      `ledger.ledgers is append-only: DELETE operation forbidden on id ${entryId}`,
    );
    // An adjustment transaction (no intent refers to it): the cascade reaches ledgers and is refused.
    const adjustment = await raw.query(`SELECT id FROM ledger.transactions WHERE type = 'ADJUSTMENT' LIMIT 1`);
    await expect(raw.query(`DELETE FROM ledger.transactions WHERE id = $1`, [adjustment.rows[0].id])).rejects.toThrow(
      /ledger\.ledgers is append-only: DELETE operation forbidden on id [0-9a-f-]{36}/,
    );
    await expect(raw.query(`TRUNCATE ledger.ledgers CASCADE`)).rejects.toThrow(/append-only: TRUNCATE operation forbidden/);
  });

  it('keeps intent_events append-only too', async () => {
    const ev = await raw.query(`SELECT id FROM ledger.intent_events LIMIT 1`);
    await expect(raw.query(`UPDATE ledger.intent_events SET event = 'x' WHERE id = $1`, [ev.rows[0].id])).rejects.toThrow(
      `ledger.intent_events is append-only: UPDATE operation forbidden on id ${ev.rows[0].id}`,
    );
    await expect(raw.query(`DELETE FROM ledger.intent_events WHERE id = $1`, [ev.rows[0].id])).rejects.toThrow(/append-only: DELETE/);
  });

  it.each([
    ['a negative balance', `balance = -5, available_balance = 0, frozen_balance = -5`, 'CHK_accounts_positive_balance'],
    ['balance ≠ available + frozen', `balance = balance + 1`, 'CHK_accounts_balance_consistency'],
    ['a negative available balance', `available_balance = -5, frozen_balance = balance + 5`, 'CHK_accounts_positive_available_balance'],
    ['a negative frozen balance', `available_balance = balance + 5, frozen_balance = -5`, 'CHK_accounts_positive_frozen_balance'],
  ])('refuses %s written by raw SQL (%s)', async (_name, set, constraint) => {
    const error = await raw.query(`UPDATE ledger.accounts SET ${set} WHERE id = $1`, [account]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: '23514', constraint });
  });

  it('lets a treasury account go negative (inside a rolled-back transaction)', async () => {
    await raw.query('BEGIN');
    try {
      const res = await raw.query(
        `UPDATE ledger.accounts SET balance = -5, available_balance = -5 WHERE account_type = 'treasury' AND currency = 'XAF'`,
      );
      expect(res.rowCount).toBe(1);
    } finally {
      await raw.query('ROLLBACK');
    }
  });

  it('refuses a malformed reference id and a second transaction for one intent', async () => {
    const error = await raw
      .query(
        `INSERT INTO ledger.transactions (reference_id, type, amount, currency, created_by, initiated_at) VALUES ('BAD', 'ADJUSTMENT', 1, 'XAF', 'x', now())`,
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_reference_format' });
    const intent = await raw.query(`SELECT intent_id FROM ledger.transactions WHERE id = $1`, [txId]);
    const dup = await raw
      .query(
        `INSERT INTO ledger.transactions (reference_id, type, intent_id, amount, currency, created_by, initiated_at) VALUES ('MMPTX260101ABCDEFG', 'TRANSFER', $1, 1, 'XAF', 'x', now())`,
        [intent.rows[0].intent_id],
      )
      .catch((e: unknown) => e);
    expect(dup).toMatchObject({ code: '23505', constraint: 'UQ_transactions_intent' });
  });
});
