import { randomInt, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { OWNER_ROLE } from '../../../tools/db';
import { type Harness, fundedAccount, startLedger, transfer } from './ledger-harness';

const MAX = Number.MAX_SAFE_INTEGER;

/** A reference id of the required form, random in its tail. */
function referenceId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return `TSTTX260101${Array.from({ length: 7 }, () => alphabet[randomInt(alphabet.length)]).join('')}`;
}

/**
 * The last line of defence (docs/ledger.md "Rules the database enforces"): raw SQL that bypasses the
 * service is refused.
 */
describe('ledger: constraints and append-only triggers', () => {
  let h: Harness;
  let raw: Client;
  /** The role that owns the tables (migrations act as it): the append-only triggers hold even against it. */
  let owner: Client;
  let txId: string;
  let entryId: string;
  let account: string;

  beforeAll(async () => {
    h = await startLedger();
    // The service's own role, writing straight to its tables.
    raw = new Client({ connectionString: h.db.urlFor('ledger-wallets') });
    await raw.connect();
    owner = new Client({ connectionString: h.db.adminUrl });
    await owner.connect();
    await owner.query(`SET ROLE ${OWNER_ROLE}`);
    account = await fundedAccount(h, 1_000);
    const other = await fundedAccount(h, 0);
    const done = await transfer(h, account, other, 100);
    txId = done.body.transactionId;
    const entries = await raw.query(`SELECT id FROM ledger.ledgers WHERE transaction_id = $1 ORDER BY id LIMIT 1`, [txId]);
    entryId = entries.rows[0].id;
  });
  afterAll(async () => {
    await raw.end();
    await owner.end();
    await h.close();
  });

  it('rejects UPDATE on ledgers with the exact message', async () => {
    await expect(owner.query(`UPDATE ledger.ledgers SET amount = 1 WHERE id = $1`, [entryId])).rejects.toThrow(
      `ledger.ledgers is append-only: UPDATE operation forbidden on id ${entryId}`,
    );
  });

  it('rejects DELETE on ledgers, directly and through a transaction (itself append-only now)', async () => {
    await expect(owner.query(`DELETE FROM ledger.ledgers WHERE id = $1`, [entryId])).rejects.toThrow(
      `ledger.ledgers is append-only: DELETE operation forbidden on id ${entryId}`,
    );
    const adjustment = await owner.query(`SELECT id FROM ledger.transactions WHERE type = 'ADJUSTMENT' LIMIT 1`);
    await expect(owner.query(`DELETE FROM ledger.transactions WHERE id = $1`, [adjustment.rows[0].id])).rejects.toThrow(
      `ledger.transactions is append-only: DELETE operation forbidden on id ${adjustment.rows[0].id}`,
    );
    await expect(owner.query(`TRUNCATE ledger.ledgers CASCADE`)).rejects.toThrow(/append-only: TRUNCATE operation forbidden/);
  });

  it('keeps transactions append-only: UPDATE, DELETE and TRUNCATE refused with the same message form', async () => {
    await expect(owner.query(`UPDATE ledger.transactions SET metadata = '{}'::jsonb WHERE id = $1`, [txId])).rejects.toThrow(
      `ledger.transactions is append-only: UPDATE operation forbidden on id ${txId}`,
    );
    await expect(owner.query(`DELETE FROM ledger.transactions WHERE id = $1`, [txId])).rejects.toThrow(
      `ledger.transactions is append-only: DELETE operation forbidden on id ${txId}`,
    );
    await expect(owner.query(`TRUNCATE ledger.transactions CASCADE`)).rejects.toThrow(
      /ledger\.(transactions|ledgers) is append-only: TRUNCATE operation forbidden/,
    );
    const still = await owner.query(`SELECT count(*)::int AS n FROM ledger.ledgers WHERE transaction_id = $1`, [txId]);
    expect(still.rows[0].n).toBe(2);
  });

  it('keeps intent_events append-only too', async () => {
    const ev = await owner.query(`SELECT id FROM ledger.intent_events LIMIT 1`);
    await expect(owner.query(`UPDATE ledger.intent_events SET event = 'x' WHERE id = $1`, [ev.rows[0].id])).rejects.toThrow(
      `ledger.intent_events is append-only: UPDATE operation forbidden on id ${ev.rows[0].id}`,
    );
    await expect(owner.query(`DELETE FROM ledger.intent_events WHERE id = $1`, [ev.rows[0].id])).rejects.toThrow(/append-only: DELETE/);
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

  describe('double entry checked at COMMIT (deferred constraint triggers)', () => {
    let other: string;
    beforeAll(async () => {
      other = await fundedAccount(h, 0);
    });

    const newTransaction = async (): Promise<string> => {
      const id = randomUUID();
      await raw.query(
        `INSERT INTO ledger.transactions (id, reference_id, type, amount, currency, created_by, initiated_at) VALUES ($1, $2, 'ADJUSTMENT', 1, 'XAF', 'raw-sql', now())`,
        [id, referenceId()],
      );
      return id;
    };
    const entry = (tx: string, accountId: string, kind: 'DEBIT' | 'CREDIT', amount: number, currency = 'XAF') =>
      raw.query(
        `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, gen_random_uuid(), 'raw-sql')`,
        [tx, accountId, kind, amount, currency],
      );
    /** A pair that moves nothing in the end on either account: A→B then B→A of the same amount. */
    const roundTrip = async (tx: string, amount: number) => {
      await entry(tx, account, 'DEBIT', amount);
      await entry(tx, other, 'CREDIT', amount);
    };
    /** Runs `work` in one database transaction; resolves to the error of the first failing statement or of COMMIT. */
    const attempt = async (work: () => Promise<void>): Promise<unknown> => {
      await raw.query('BEGIN');
      try {
        await work();
        await raw.query('COMMIT');
        return undefined;
      } catch (error) {
        await raw.query('ROLLBACK');
        return error;
      }
    };
    const count = async (tx: string) =>
      (await raw.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE id = $1`, [tx])).rows[0].n as number;

    it('accepts a balanced transaction written over several statements (the check waits for COMMIT), up to 6 entries', async () => {
      let tx = '';
      const error = await attempt(async () => {
        tx = await newTransaction();
        // Unbalanced after each of these statements, balanced at COMMIT.
        await entry(tx, account, 'DEBIT', 5);
        await entry(tx, other, 'CREDIT', 5);
        await entry(tx, other, 'DEBIT', 3);
        await entry(tx, account, 'CREDIT', 3);
        await entry(tx, other, 'DEBIT', 2);
        await entry(tx, account, 'CREDIT', 2);
      });
      expect(error).toBeUndefined();
      expect(await count(tx)).toBe(1);
    });

    it.each<[string, (tx: string) => Promise<void>, string, RegExp]>([
      ['no entry at all', async () => undefined, 'CHK_transactions_entry_count', /has 0 entries: a transaction has 2 to 6/],
      [
        'a single entry',
        async (tx) => {
          await entry(tx, account, 'DEBIT', 7);
        },
        'CHK_transactions_entry_count',
        /has 1 entries/,
      ],
      [
        'seven entries, balanced',
        async (tx) => {
          for (let i = 0; i < 3; i++) await roundTrip(tx, 1);
          await entry(tx, account, 'CREDIT', 1);
        },
        'CHK_transactions_entry_count',
        /has 7 entries/,
      ],
      [
        'debits larger than credits',
        async (tx) => {
          await entry(tx, account, 'DEBIT', 100);
          await entry(tx, other, 'CREDIT', 90);
        },
        'CHK_transactions_balanced',
        /does not balance: credits minus debits = -10 XAF/,
      ],
      [
        'zero in total but not per currency',
        async (tx) => {
          await entry(tx, account, 'DEBIT', 100, 'XAF');
          await entry(tx, other, 'CREDIT', 100, 'XOF');
        },
        'CHK_transactions_balanced',
        /does not balance: credits minus debits = -100 XAF, 100 XOF$/,
      ],
    ])('refuses at COMMIT a transaction with %s', async (_name, write, constraint, message) => {
      let tx = '';
      const error = await attempt(async () => {
        tx = await newTransaction();
        await write(tx);
      });
      expect(error).toMatchObject({ code: '23514', constraint });
      expect((error as Error).message).toMatch(message);
      expect(await count(tx)).toBe(0);
    });

    it('refuses entries added to a transaction committed earlier, even balanced ones', async () => {
      const before = await raw.query(`SELECT count(*)::int AS n FROM ledger.ledgers WHERE transaction_id = $1`, [txId]);
      const error = await attempt(() => roundTrip(txId, 1));
      expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_closed' });
      expect((error as Error).message).toMatch(`ledger.transactions ${txId} is closed`);
      const after = await raw.query(`SELECT count(*)::int AS n FROM ledger.ledgers WHERE transaction_id = $1`, [txId]);
      expect(after.rows[0].n).toBe(before.rows[0].n);
    });

    it('checks again when entries are added after a check forced early (SET CONSTRAINTS … IMMEDIATE)', async () => {
      let tx = '';
      const error = await attempt(async () => {
        tx = await newTransaction();
        await roundTrip(tx, 4);
        await raw.query('SET CONSTRAINTS ALL IMMEDIATE'); // the balanced transaction is checked here
        await entry(tx, other, 'CREDIT', 4); // and this entry's statement is checked on its own
      });
      expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_balanced' });
      expect(await count(tx)).toBe(0);
    });

    it('checks again every transaction found balanced earlier, not only the last one, once entries are added', async () => {
      // The check remembers the recent transactions it found balanced (migration 1765000000000):
      // an entry added afterwards to the first of two must still be caught at COMMIT.
      let first = '';
      const error = await attempt(async () => {
        first = await newTransaction();
        await roundTrip(first, 4);
        const second = await newTransaction();
        await roundTrip(second, 4);
        await raw.query('SET CONSTRAINTS ALL IMMEDIATE'); // both are checked (and remembered) here
        await entry(first, other, 'CREDIT', 4);
      });
      expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_balanced' });
      expect((error as Error).message).toMatch(`ledger.transactions ${first} does not balance`);
      expect(await count(first)).toBe(0);
    });

    it('refuses a balance or an entry beyond 2^53 − 1 written by raw SQL', async () => {
      const treasury = await raw.query(`SELECT id FROM ledger.accounts WHERE account_type = 'treasury' AND currency = 'XAF'`);
      const tooHigh = await raw
        .query(`UPDATE ledger.accounts SET balance = $2::bigint + 1, available_balance = $2::bigint + 1 WHERE id = $1`, [account, MAX])
        .catch((e: unknown) => e);
      expect(tooHigh).toMatchObject({ code: '23514', constraint: 'CHK_accounts_money_range' });
      const tooLow = await raw
        .query(`UPDATE ledger.accounts SET balance = -$2::bigint - 1, available_balance = -$2::bigint - 1 WHERE id = $1`, [
          treasury.rows[0].id,
          MAX,
        ])
        .catch((e: unknown) => e);
      expect(tooLow).toMatchObject({ code: '23514', constraint: 'CHK_accounts_money_range' });
      const error = await attempt(async () => {
        const tx = await newTransaction();
        await entry(tx, account, 'DEBIT', MAX + 1);
      });
      expect(error).toMatchObject({ code: '23514', constraint: 'CHK_ledgers_money_range' });
    });
  });
});
