import { randomInt, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SERVICES } from '@mm/contracts';
import { MIGRATIONS_TABLE } from '../../../migrations/runtime-role';
import { migrateAll, migrationDataSource, undoLastMigration } from '../../../tools/db';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';

/** The setting in which the double-entry check remembers the transactions it found balanced. */
const MEMO = 'ledger.balanced_transaction';

/** The migration that authenticates the memo. */
const MIGRATION = 'BalanceMemoAuthentication1765300000000';

/** The text, owner and grants of every function of the ledger schema. */
async function ledgerFunctions(url: string): Promise<string[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ line: string }>(
      `SELECT concat_ws(' ', pg_get_functiondef(p.oid), p.proowner::regrole, p.proacl) AS line
         FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace AND p.prokind = 'f' ORDER BY p.oid::regprocedure::text`,
    );
    return rows.map((r) => r.line);
  } finally {
    await c.end();
  }
}

/** Undoes the ledger's migrations, the last first, until `name` is no longer applied. */
async function revertThrough(db: TestDatabase, name: string): Promise<void> {
  const source = migrationDataSource(db.adminUrl, 'ledger-wallets');
  await source.initialize();
  try {
    const applied = async () =>
      ((await source.query(`SELECT name FROM ${SERVICES['ledger-wallets'].schema}.${MIGRATIONS_TABLE}`)) as { name: string }[]).some(
        (r) => r.name === name,
      );
    while (await applied()) await undoLastMigration(source);
  } finally {
    await source.destroy();
  }
}

function referenceId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return `TSTTX260101${Array.from({ length: 7 }, () => alphabet[randomInt(alphabet.length)]).join('')}`;
}

/**
 * The double-entry check at COMMIT skips a transaction it remembers having found balanced. The
 * ledger's own role writes the memo's setting as freely as any session
 * (docs/ledger.md "Rules the database enforces"): what it writes there must never make the check
 * skip a transaction it did not find balanced.
 */
describe('ledger: the double-entry memo cannot be forged by the ledger role', () => {
  let db: TestDatabase;
  /** the service's role (svc_ledger), writing straight to its tables */
  let svc: Client;
  let payer: string;
  let payee: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    svc = new Client({ connectionString: db.urlFor('ledger-wallets') });
    await svc.connect();
    const wallet = await svc.query<{ id: string }>(`INSERT INTO ledger.wallets (owner_type, owner_id) VALUES ('USER', $1) RETURNING id`, [
      `memo-${randomUUID()}`,
    ]);
    const accounts = await svc.query<{ id: string }>(
      `INSERT INTO ledger.accounts (wallet_id, account_type, currency, holder)
       VALUES ($1, 'customer', 'XAF', 'payer'), ($1, 'agent', 'XAF', 'payee') RETURNING id`,
      [wallet.rows[0].id],
    );
    [payer, payee] = accounts.rows.map((r) => r.id);
  });
  afterAll(async () => {
    await svc.end();
    await db.drop();
  });

  const newTransaction = async (): Promise<string> => {
    const id = randomUUID();
    await svc.query(
      `INSERT INTO ledger.transactions (id, reference_id, type, amount, currency, created_by, initiated_at)
       VALUES ($1, $2, 'ADJUSTMENT', 1, 'XAF', 'memo-test', now())`,
      [id, referenceId()],
    );
    return id;
  };
  const entry = (tx: string, account: string, kind: 'DEBIT' | 'CREDIT', amount: number) =>
    svc.query(
      `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, 'XAF', gen_random_uuid(), 'memo-test')`,
      [tx, account, kind, amount],
    );
  const setMemo = (value: string) => svc.query(`SELECT set_config($1, $2, true)`, [MEMO, value]);
  const readMemo = async () => (await svc.query<{ memo: string | null }>(`SELECT current_setting($1, true) AS memo`, [MEMO])).rows[0].memo;
  /** Runs `work` in one database transaction; resolves to the error of the first failing statement or of COMMIT. */
  const attempt = async (work: () => Promise<void>): Promise<unknown> => {
    await svc.query('BEGIN');
    try {
      await work();
      await svc.query('COMMIT');
      return undefined;
    } catch (error) {
      await svc.query('ROLLBACK');
      return error;
    }
  };
  const committed = async (tx: string) =>
    (await svc.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.transactions WHERE id = $1`, [tx])).rows[0].n === 1;

  it.each<[string, (tx: string) => string]>([
    ['the transaction id alone (the memo of migration 1764000100000)', (tx) => tx],
    ['the transaction id in the list form of migration 1765000000000', (tx) => ` ${randomUUID()} ${tx}`],
    ['the transaction id with a made-up authentication code', (tx) => ` ${tx}:${'0'.repeat(32)}`],
    ['the transaction id with a made-up code of every length', (tx) => [8, 32, 64].map((n) => ` ${tx}:${'f'.repeat(n)}`).join('')],
  ])('a one-sided transaction is refused at COMMIT though the memo names it: %s', async (_name, forged) => {
    let tx = '';
    const error = await attempt(async () => {
      tx = await newTransaction();
      await entry(tx, payer, 'DEBIT', 500);
      await entry(tx, payee, 'DEBIT', 500);
      await setMemo(forged(tx));
    });
    expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_balanced' });
    expect((error as Error).message).toMatch(`ledger.transactions ${tx} does not balance: credits minus debits = -1000 XAF`);
    expect(await committed(tx)).toBe(false);
  });

  it('a single entry is refused at COMMIT though the memo names its transaction', async () => {
    let tx = '';
    const error = await attempt(async () => {
      tx = await newTransaction();
      await entry(tx, payee, 'CREDIT', 500);
      await setMemo(` ${tx}`);
    });
    expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_entry_count' });
    expect(await committed(tx)).toBe(false);
  });

  it('a memo the check itself wrote is not honoured once entries were added after it (replayed after a forced early check)', async () => {
    let tx = '';
    let genuine: string | null = null;
    const error = await attempt(async () => {
      tx = await newTransaction();
      await entry(tx, payer, 'DEBIT', 300);
      await entry(tx, payee, 'CREDIT', 300);
      await svc.query('SET CONSTRAINTS ALL IMMEDIATE'); // checked, found balanced, remembered
      genuine = await readMemo();
      await svc.query('SET CONSTRAINTS ALL DEFERRED');
      await entry(tx, payee, 'CREDIT', 300); // unbalanced from here on
      await setMemo(genuine ?? ''); // the memo as the check had written it
    });
    expect(genuine).toContain(tx);
    expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_balanced' });
    expect((error as Error).message).toMatch(`ledger.transactions ${tx} does not balance: credits minus debits = 300 XAF`);
    expect(await committed(tx)).toBe(false);
  });

  it('a memo copied from another database transaction is not honoured', async () => {
    // A balanced transaction commits, and its memo is kept by the client...
    let first = '';
    let copied: string | null = null;
    expect(
      await attempt(async () => {
        first = await newTransaction();
        await entry(first, payer, 'DEBIT', 200);
        await entry(first, payee, 'CREDIT', 200);
        await svc.query('SET CONSTRAINTS ALL IMMEDIATE');
        copied = await readMemo();
      }),
    ).toBeUndefined();
    expect(await committed(first)).toBe(true);
    // ...and replayed, with the id swapped for the new transaction's, in the next one.
    let tx = '';
    const error = await attempt(async () => {
      tx = await newTransaction();
      await entry(tx, payer, 'DEBIT', 200);
      await setMemo(`${copied ?? ''}`.split(first).join(tx));
    });
    expect(error).toMatchObject({ code: '23514', constraint: 'CHK_transactions_entry_count' });
    expect(await committed(tx)).toBe(false);
  });

  it('still commits a balanced transaction, and remembers it with its code for the entries that follow', async () => {
    let tx = '';
    let memo: string | null = null;
    const error = await attempt(async () => {
      tx = await newTransaction();
      await entry(tx, payer, 'DEBIT', 100);
      await entry(tx, payee, 'CREDIT', 100);
      await svc.query('SET CONSTRAINTS ALL IMMEDIATE');
      memo = await readMemo();
    });
    expect(error).toBeUndefined();
    expect(memo).toMatch(new RegExp(`^ ${tx}:[0-9a-f]{32}$`));
    // The key exists (a missing one would make every code NULL, and the memo useless) and is not a constant.
    const admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ a: string | null; b: string | null }>(
        `SELECT pg_sequence_last_value('ledger.balance_memo_key_a') AS a, pg_sequence_last_value('ledger.balance_memo_key_b') AS b`,
      );
      expect(rows[0].a).not.toBeNull();
      expect(rows[0].b).not.toBeNull();
      expect(rows[0].a).not.toBe(rows[0].b);
    } finally {
      await admin.end();
    }
    expect(await committed(tx)).toBe(true);
  });

  it('reverting the migration gives the functions back as migration 1765000000000 left them; migrating again, as now', async () => {
    const other = await createTestDatabase();
    try {
      const now = await ledgerFunctions(other.adminUrl);
      await revertThrough(other, MIGRATION);
      const before = (await ledgerFunctions(other.adminUrl)).join('\n');
      expect(before).toContain(
        "IF position(' ' || tx::text IN coalesce(current_setting('ledger.balanced_transaction', true), '')) > 0 THEN RETURN NULL; END IF;",
      );
      expect(before).not.toMatch(/balance_memo|SECURITY DEFINER|search_path/);
      await migrateAll(other.adminUrl);
      expect(await ledgerFunctions(other.adminUrl)).toEqual(now);
    } finally {
      await other.drop();
    }
  }, 60_000);

  it.each(['ledger.balance_memo_key_a', 'ledger.balance_memo_key_b', 'ledger.balance_memo_generation'])(
    'the ledger role can neither read nor move %s (the key and the generation of the memo codes)',
    async (seq) => {
      for (const sql of [
        `SELECT pg_sequence_last_value('${seq}')`,
        `SELECT * FROM ${seq}`,
        `SELECT currval('${seq}')`,
        `SELECT nextval('${seq}')`,
        `SELECT setval('${seq}', 1)`,
      ]) {
        await expect(svc.query(sql)).rejects.toMatchObject({ code: '42501' });
      }
      const listed = await svc.query(`SELECT last_value FROM pg_sequences WHERE schemaname || '.' || sequencename = $1`, [seq]);
      expect(listed.rows).toEqual([{ last_value: null }]);
    },
  );
});
