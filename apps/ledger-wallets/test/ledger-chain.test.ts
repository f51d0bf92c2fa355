import { randomUUID } from 'node:crypto';
import { TEST_CHECKER, TEST_MAKER } from '../../../test/support/funding';
import { ChainAnchors } from '../src/chain/chain-anchors.service';
import { CHAIN_WALK_SQL, type ChainEntryRow, chainLink } from '../src/chain/chain-link';
import { type ResponseBody, fundedAccount, transfer } from './ledger-harness';
import { SUPPORT, reverseApproved, useOperatorLedger } from './operators';

/**
 * The tamper-evident ledger (docs/ledger-chain.md) on a real database: every way money is written
 * chains its entries (confirms alone and grouped, legacy funding, a maker-checker reversal), and a
 * superuser's raw edit, insert and delete are each named as the first broken link; recomputing every
 * hash after an edit is caught by the signed anchor. Each tampering is undone before the next test
 * (this file's database is its own copy; the restores keep the tests independent of their order).
 */
describe('ledger hash chain', () => {
  const t = useOperatorLedger({ env: { LEDGER_CHAIN_ANCHOR_KEY: 'test-ledger-chain-anchor-key-0123456789abcdef' } });
  let a: string;
  let b: string;
  let c: string;

  const verify = async (): Promise<ResponseBody> => {
    const res = await t.h.call('POST', '/v1/internal/ledger-chain/verifications', {}, await t.as(TEST_CHECKER));
    expect(res.status).toBe(200);
    return res.body;
  };

  /** Runs `sql` as a superuser with every trigger off, as someone rewriting history would. */
  const raw = async (sql: string, params: unknown[] = []) => {
    await t.h.admin.query('BEGIN');
    await t.h.admin.query('SET LOCAL session_replication_role = replica');
    const res = await t.h.admin.query(sql, params);
    await t.h.admin.query('COMMIT');
    return res.rows;
  };

  /** The account's entries in chain order: [seq, id, transaction id]. */
  const chainOf = async (account: string) =>
    (
      await t.h.admin.query<{ seq: string; id: string; transaction_id: string; reference_id: string }>(
        `SELECT l.chain_seq AS seq, l.id, l.transaction_id, t.reference_id FROM ledger.ledgers l JOIN ledger.transactions t ON t.id = l.transaction_id
          WHERE l.account_id = $1 ORDER BY l.chain_seq`,
        [account],
      )
    ).rows;

  /** What an attacker who knows the algorithm does after an edit: recomputes the account's whole chain and its head. */
  const rechain = (account: string) =>
    raw(
      `DO $$
       DECLARE r record; head bytea := '\\x${'00'.repeat(32)}'::bytea; n bigint := 0;
       BEGIN
         FOR r IN SELECT l.*, t.reference_id, t.type, t.amount AS tx_amount, t.fee, t.currency AS tx_currency, t.completed_at, t.intent_id, t.reversal_of
                    FROM ledger.ledgers l JOIN ledger.transactions t ON t.id = l.transaction_id
                   WHERE l.account_id = '${account}' ORDER BY l.chain_seq LOOP
           n := n + 1;
           UPDATE ledger.ledgers SET chain_seq = n, chain_prev = head,
             chain_hash = ledger.chain_link(head, n, r.id, r.transaction_id, r.account_id, r.kind, r.amount, r.currency::text, r.counterparty_ledger_id,
               r.created_at, r.reference_id, r.type, r.tx_amount, r.fee, r.tx_currency::text, r.completed_at, r.intent_id, r.reversal_of)
           WHERE id = r.id RETURNING chain_hash INTO head;
         END LOOP;
         UPDATE ledger.accounts SET chain_seq = n, chain_head = head WHERE id = '${account}';
       END $$`,
    );

  /** A raw delete that keeps the row aside, exactly (to the microsecond), for `restoreEntry`. */
  const deleteEntry = (id: string) =>
    raw(`WITH gone AS (DELETE FROM ledger.ledgers WHERE id = $1 RETURNING *) INSERT INTO public.chain_test_deleted SELECT * FROM gone`, [
      id,
    ]);
  const restoreEntry = (id: string) => raw(`INSERT INTO ledger.ledgers SELECT * FROM public.chain_test_deleted WHERE id = $1`, [id]);

  beforeAll(async () => {
    await t.h.admin.query(`CREATE TABLE public.chain_test_deleted (LIKE ledger.ledgers)`);
    // Funding goes through the legacy add (the chain trigger's path), payments through the confirm functions.
    [a, b, c] = await Promise.all([fundedAccount(t.h, 1_000_000), fundedAccount(t.h, 1_000_000), fundedAccount(t.h, 1_000_000)]);
    for (const [from, to] of [
      [a, b],
      [b, c],
      [c, a],
      [a, b],
    ]) {
      expect((await transfer(t.h, from, to, 1_000, 25)).status).toBe(200);
    }
    // A burst of concurrent payments among the three (and fee_collection): group commits share one transaction.
    const pairs = Array.from({ length: 36 }, (_, i) => [[a, b, c][i % 3], [b, c, a][i % 3]] as const);
    const results = await Promise.all(pairs.map(([from, to], i) => transfer(t.h, from, to, 100 + i, i % 2 ? 10 : 0)));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    // A reversal under four eyes: the corrections path writes entries and balances in one statement.
    const [{ reference_id: paid }] = (
      await t.h.admin.query<{ reference_id: string }>(
        `SELECT t.reference_id FROM ledger.transactions t JOIN ledger.ledgers l ON l.transaction_id = t.id
          WHERE l.account_id = $1 AND t.type = 'TRANSFER' ORDER BY t.completed_at LIMIT 1`,
        [a],
      )
    ).rows;
    await reverseApproved(t, paid);
  });

  it('chains every entry the service writes, as the service recomputes it, and an untouched ledger verifies intact', async () => {
    const rows = (await t.h.admin.query<ChainEntryRow>(CHAIN_WALK_SQL)).rows;
    expect(rows.length).toBeGreaterThan(120);
    for (const row of rows) expect(chainLink(row.chain_prev, row)).toBe(row.chain_hash);
    // every account's head is its last entry, and its places run 1..n
    const heads = await t.h.admin.query<{ ok: boolean }>(
      `SELECT a.chain_seq = count(l.id) AND a.chain_seq = coalesce(max(l.chain_seq), 0)
              AND a.chain_head = coalesce((SELECT x.chain_hash FROM ledger.ledgers x WHERE x.account_id = a.id AND x.chain_seq = a.chain_seq), a.chain_head) AS ok
         FROM ledger.accounts a LEFT JOIN ledger.ledgers l ON l.account_id = a.id GROUP BY a.id`,
    );
    expect(heads.rows.every((r) => r.ok)).toBe(true);

    const run = await verify();
    expect(run).toMatchObject({
      status: 'INTACT',
      brokenAccounts: 0,
      firstBreak: null,
      entriesChecked: rows.length,
      requestedBy: TEST_CHECKER.id,
    });
    expect(run.accountsChecked).toBeGreaterThanOrEqual(5); // a, b, c, fee_collection, suspense
  });

  it('names a raw edit of an entry, and of its transaction, as EDITED at that entry', async () => {
    const [, second] = await chainOf(b);
    await raw(`UPDATE ledger.ledgers SET amount = amount + 1 WHERE id = $1`, [second.id]);
    try {
      const run = await verify();
      expect(run.status).toBe('BROKEN');
      expect(run.firstBreak).toMatchObject({
        kind: 'EDITED',
        accountId: b,
        entryId: second.id,
        chainSeq: 2,
        transactionId: second.transaction_id,
        referenceId: second.reference_id,
      });
      expect(run.firstBreak.expected).not.toBe(run.firstBreak.found);
    } finally {
      await raw(`UPDATE ledger.ledgers SET amount = amount - 1 WHERE id = $1`, [second.id]);
    }

    const [, , third] = await chainOf(c);
    await raw(`UPDATE ledger.transactions SET completed_at = completed_at - interval '1 day' WHERE id = $1`, [third.transaction_id]);
    try {
      const run = await verify();
      expect(run.firstBreak).toMatchObject({ kind: 'EDITED', transactionId: third.transaction_id });
      expect([b, c, a]).toContain(run.firstBreak.accountId);
    } finally {
      await raw(`UPDATE ledger.transactions SET completed_at = completed_at + interval '1 day' WHERE id = $1`, [third.transaction_id]);
    }
    expect((await verify()).status).toBe('INTACT');
  });

  it('names a raw insert as INSERTED and a raw delete as DELETED, at the entry concerned', async () => {
    // Insert: a balanced pair on a and b, written with the triggers off and a made-up link after each head.
    const [lo, hi] = [a, b].sort();
    const tx = randomUUID();
    const [debit, credit] = [randomUUID(), randomUUID()];
    await raw(
      `INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at)
       VALUES ($1, 'MMPTX261122ZZZZZZZ', 'TRANSFER', 500, 0, 'XAF', 'intruder', now(), now())`,
      [tx],
    );
    await raw(
      `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, chain_seq, chain_prev, chain_hash)
       SELECT e.id, $1, e.account, e.kind, 500, 'XAF', e.other, 'intruder', acc.chain_seq + 1, acc.chain_head, sha256(acc.chain_head)
         FROM (VALUES ($2::uuid, $4::uuid, 'DEBIT', $3::uuid), ($3::uuid, $5::uuid, 'CREDIT', $2::uuid)) AS e (id, account, kind, other)
         JOIN ledger.accounts acc ON acc.id = e.account`,
      [tx, debit, credit, a, b],
    );
    try {
      const run = await verify();
      expect(run.status).toBe('BROKEN');
      expect(run.firstBreak).toMatchObject({ kind: 'INSERTED', accountId: lo, entryId: lo === a ? debit : credit, transactionId: tx });
      expect(run.brokenAccounts).toBeGreaterThanOrEqual(2);
      expect(hi).not.toBe(lo);
    } finally {
      await raw(`DELETE FROM ledger.ledgers WHERE transaction_id = $1`, [tx]);
      await raw(`DELETE FROM ledger.transactions WHERE id = $1`, [tx]);
    }
    expect((await verify()).status).toBe('INTACT');

    // Delete: the third entry of c goes; the fourth now links over a missing place.
    const chain = await chainOf(c);
    await deleteEntry(chain[2].id);
    try {
      const run = await verify();
      expect(run.firstBreak).toMatchObject({ kind: 'DELETED', accountId: c, entryId: chain[3].id, chainSeq: 4 });
    } finally {
      await restoreEntry(chain[2].id);
    }
    // The last entry of a chain: only the account's head still names it.
    const last = (await chainOf(a)).at(-1)!;
    await deleteEntry(last.id);
    try {
      const run = await verify();
      expect(run.firstBreak).toMatchObject({ kind: 'DELETED', accountId: a, chainSeq: Number(last.seq) - 1 });
    } finally {
      await restoreEntry(last.id);
    }
    expect((await verify()).status).toBe('INTACT');
  });

  it('catches an edit whose every later hash and head were recomputed through the signed anchor, not before', async () => {
    const anchored = await t.h.app.app.get(ChainAnchors).anchorNow();
    expect(anchored).toMatchObject({ n: expect.any(Number) });
    expect((await verify()).anchor).toMatchObject({ status: 'VERIFIED', n: anchored!.n });

    const [first] = await chainOf(b);
    await raw(`UPDATE ledger.ledgers SET amount = amount + 100000 WHERE id = $1`, [first.id]);
    await rechain(b);
    try {
      const run = await verify();
      // The chain itself is consistent again: only the anchor tells.
      expect(run.status).toBe('BROKEN');
      expect(run.anchor.status).toBe('MISMATCH');
      expect(run.firstBreak).toMatchObject({ kind: 'ANCHOR_MISMATCH', accountId: b });
      expect(run.brokenAccounts).toBe(1);
    } finally {
      await raw(`UPDATE ledger.ledgers SET amount = amount - 100000 WHERE id = $1`, [first.id]);
      await rechain(b); // the same fields give back the same hashes
    }
    expect((await verify()).anchor.status).toBe('VERIFIED');

    // A forged anchor record is refused too: the heads it lists no longer match what was signed.
    const n = anchored!.n;
    await raw(`UPDATE ledger.chain_anchor_heads SET seq = seq + 1 WHERE anchor_n = $1 AND account_id = $2`, [n, b]);
    try {
      const run = await verify();
      expect(run).toMatchObject({ status: 'BROKEN', anchor: { status: 'MISMATCH', n } });
      expect(run.firstBreak).toMatchObject({ kind: 'ANCHOR_MISMATCH', accountId: null });
    } finally {
      await raw(`UPDATE ledger.chain_anchor_heads SET seq = seq - 1 WHERE anchor_n = $1 AND account_id = $2`, [n, b]);
    }
  });

  it('is part of the integrity check, lists every run with who asked, and is for compliance and administrators only', async () => {
    const check = await t.h.call('POST', '/v1/internal/integrity-checks', {}, await t.as(TEST_MAKER));
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({
      status: 'OK',
      ledgerChain: { status: 'INTACT', brokenAccounts: 0, firstBreak: null, anchorStatus: 'VERIFIED' },
    });
    const listed = await t.h.call('GET', '/v1/internal/integrity-checks?limit=1', undefined, await t.as(TEST_CHECKER));
    expect(listed.body[0]).toMatchObject({ id: check.body.id, ledgerChain: { verificationId: check.body.ledgerChain.verificationId } });

    const runs = await t.h.call('GET', '/v1/internal/ledger-chain/verifications?limit=100', undefined, await t.as(TEST_CHECKER));
    expect(runs.status).toBe(200);
    expect(runs.body[0]).toMatchObject({
      id: check.body.ledgerChain.verificationId,
      requestedBy: TEST_MAKER.id,
      integrityCheckId: check.body.id,
    });
    expect(runs.body.filter((r: ResponseBody) => r.status === 'BROKEN').length).toBeGreaterThanOrEqual(6);

    const refused = await t.h.call('POST', '/v1/internal/ledger-chain/verifications', {}, await t.as(SUPPORT));
    expect(refused).toMatchObject({ status: 403, body: { code: 'OPERATOR_ROLE_REQUIRED' } });
    expect((await t.h.call('GET', '/v1/internal/ledger-chain/verifications', undefined, {})).body.code).toBe('OPERATOR_TOKEN_REQUIRED');
    // the runs are a journal: its trigger refuses a rewrite even to the table's owner
    await expect(t.h.admin.query(`UPDATE ledger.chain_verifications SET status = 'INTACT'`)).rejects.toThrow(/append-only/);
  });
});
