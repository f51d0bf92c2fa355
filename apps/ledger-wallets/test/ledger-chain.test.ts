import { randomUUID } from 'node:crypto';
import { MetricsService } from '@mm/platform';
import { TEST_CHECKER, TEST_MAKER } from '../../../test/support/funding';
import { ANCHOR_COLUMNS, type AnchorRow, anchorFields, anchorMac, headsDigest } from '../src/chain/chain-anchor-records';
import { ChainAnchors } from '../src/chain/chain-anchors.service';
import { AnchorKeyring, keyIdOf } from '../src/chain/chain-keyring';
import { ChainVerifier } from '../src/chain/chain-verifier.service';
import { LedgerDb } from '../src/db/ledger-db.service';
import { ComplianceChannel } from '../src/common/compliance-channel.service';
import { LedgerWalletsConfig } from '../src/ledger-wallets.config';
import { CHAIN_WALK_SQL, type ChainEntryRow, chainLink } from '../src/chain/chain-link';
import { type ResponseBody, fundedAccount, transfer } from './ledger-harness';
import { SUPPORT, recordAlerts, reverseApproved, useOperatorLedger } from './operators';
import { rechainSql } from '../../../test/support/ledger-chain-tamper';

const ANCHOR_KEY = 'test-ledger-chain-anchor-key-0123456789abcdef';

/**
 * The tamper-evident ledger (docs/ledger-chain.md) on a real database: every way money is written
 * chains its entries (confirms alone and grouped, test funding, a maker-checker reversal), and a
 * superuser's raw edit, insert and delete are each named as the first broken link; recomputing every
 * hash after an edit is caught by the signed anchor. Each tampering is undone before the next test
 * (this file's database is its own copy; the restores keep the tests independent of their order).
 */
describe('ledger hash chain', () => {
  const alerts: Record<string, unknown>[] = [];
  const t = useOperatorLedger({ env: { LEDGER_CHAIN_ANCHOR_KEY: ANCHOR_KEY }, onAlert: recordAlerts(alerts) });
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
  const rechain = (account: string) => raw(rechainSql(account));

  /** A raw delete that keeps the row aside, exactly (to the microsecond), for `restoreEntry`. */
  const deleteEntry = (id: string) =>
    raw(`WITH gone AS (DELETE FROM ledger.ledgers WHERE id = $1 RETURNING *) INSERT INTO public.chain_test_deleted SELECT * FROM gone`, [
      id,
    ]);
  const restoreEntry = (id: string) => raw(`INSERT INTO ledger.ledgers SELECT * FROM public.chain_test_deleted WHERE id = $1`, [id]);

  const anchorNow = () => t.h.app.app.get(ChainAnchors).anchorNow();
  const anchorCount = async () =>
    Number((await t.h.admin.query<{ n: string }>(`SELECT count(*) AS n FROM ledger.chain_anchors`)).rows[0].n);
  const refusalsCounted = async () =>
    (await t.h.app.app.get(MetricsService).registry.getSingleMetric('ledger_chain_anchor_refusals_total')!.get()).values[0]?.value ?? 0;

  /**
   * Signs the current heads with the key, as the anchor job did before it checked what it signs (or
   * as anyone holding the key could): the anchor verifies, whatever the chain holds.
   */
  const signWithoutChecking = async (): Promise<number> => {
    const [last] = (await t.h.admin.query<AnchorRow>(`SELECT ${ANCHOR_COLUMNS} FROM ledger.chain_anchors ORDER BY n DESC LIMIT 1`)).rows;
    const heads = (
      await t.h.admin.query<{ account_id: string; seq: string; hash: string }>(
        `SELECT id AS account_id, chain_seq::text AS seq, encode(chain_head, 'hex') AS hash FROM ledger.accounts WHERE chain_seq > 0 ORDER BY id`,
      )
    ).rows;
    const anchored = new Map(
      (
        await t.h.admin.query<{ account_id: string; seq: string; hash: string }>(
          `SELECT DISTINCT ON (account_id) account_id, seq::text AS seq, encode(hash, 'hex') AS hash
             FROM ledger.chain_anchor_heads ORDER BY account_id, anchor_n DESC`,
        )
      ).rows.map((r) => [r.account_id, `${r.seq}:${r.hash}`]),
    );
    const moved = heads.filter((h) => anchored.get(h.account_id) !== `${h.seq}:${h.hash}`);
    const fields = {
      n: anchorFields(last).n + 1,
      at: new Date().toISOString(),
      accounts: heads.length,
      entries: heads.reduce((sum, h) => sum + Number(h.seq), 0),
      digest: headsDigest(heads),
      movedDigest: headsDigest(moved),
    };
    const mac = anchorMac(Buffer.from(ANCHOR_KEY), fields, last.mac);
    await t.h.admin.query(
      `INSERT INTO ledger.chain_anchors (n, at, accounts, entries, heads_digest, moved_digest, mac, key_id)
       VALUES ($1, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), decode($7, 'hex'), $8)`,
      [fields.n, fields.at, fields.accounts, fields.entries, fields.digest, fields.movedDigest, mac, last.key_id],
    );
    await t.h.admin.query(
      `INSERT INTO ledger.chain_anchor_heads (account_id, anchor_n, seq, hash)
       SELECT h.a, $1, h.s, decode(h.h, 'hex') FROM unnest($2::uuid[], $3::bigint[], $4::text[]) AS h (a, s, h)`,
      [fields.n, moved.map((h) => h.account_id), moved.map((h) => h.seq), moved.map((h) => h.hash)],
    );
    return fields.n;
  };
  const dropAnchor = async (n: number) => {
    await raw(`DELETE FROM ledger.chain_anchor_heads WHERE anchor_n = $1`, [n]);
    await raw(`DELETE FROM ledger.chain_anchors WHERE n = $1`, [n]);
  };

  beforeAll(async () => {
    await t.h.admin.query(`CREATE TABLE public.chain_test_deleted (LIKE ledger.ledgers)`);
    // Funding goes through the test-funding add (the chain trigger's path), payments through the confirm functions.
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
      // Every entry of the transaction breaks (a fee's credit too): the first by account id is named.
      const touched = (
        await t.h.admin.query<{ account_id: string }>(`SELECT account_id FROM ledger.ledgers WHERE transaction_id = $1`, [
          third.transaction_id,
        ])
      ).rows.map((r) => r.account_id);
      expect(run.firstBreak).toMatchObject({ kind: 'EDITED', transactionId: third.transaction_id, accountId: touched.sort()[0] });
      expect(touched).toContain(c);
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

  it('names the earliest tampering first, whatever the account ids, and lists every broken account', async () => {
    // Two fresh accounts: the one with the higher id gets its entries first.
    const [x, y] = [await fundedAccount(t.h, 50_000), await fundedAccount(t.h, 50_000)];
    const [late, early] = x < y ? [x, y] : [y, x];
    const second = await t.h.call('PUT', `/v1/accounts/${early}/balance/add`, { amount: 1_000, reason: 'test funding', createdBy: 'test' });
    expect(second.status).toBe(200);
    await t.h.admin.query(`SELECT pg_sleep(0.01)`);
    expect(
      (await t.h.call('PUT', `/v1/accounts/${late}/balance/add`, { amount: 2_000, reason: 'test funding', createdBy: 'test' })).status,
    ).toBe(200);
    const [real] = (await chainOf(early)).slice(-1);
    const [decoy] = (await chainOf(late)).slice(-1);
    // the real rewrite is of an entry written before the decoy's, on the account with the higher id
    await raw(`UPDATE ledger.ledgers SET amount = amount + 9 WHERE id = ANY($1::uuid[])`, [[real.id, decoy.id]]);
    try {
      const run = await verify();
      expect(run).toMatchObject({ status: 'BROKEN', brokenAccounts: 2 });
      expect(run.firstBreak).toMatchObject({ kind: 'EDITED', accountId: early, entryId: real.id });
      expect(run.breaks.map((b: { accountId: string; entryId: string }) => [b.accountId, b.entryId])).toEqual([
        [early, real.id],
        [late, decoy.id],
      ]);
      const [stored] = (await t.h.admin.query(`SELECT breaks FROM ledger.chain_verifications WHERE id = $1`, [run.id])).rows;
      expect(stored.breaks).toEqual(run.breaks);
    } finally {
      await raw(`UPDATE ledger.ledgers SET amount = amount - 9 WHERE id = ANY($1::uuid[])`, [[real.id, decoy.id]]);
    }
    expect((await verify()).status).toBe('INTACT');
  });

  it('catches an edit whose every later hash and head were recomputed through the signed anchor, not before', async () => {
    const anchored = await anchorNow();
    expect(anchored).toMatchObject({ status: 'WRITTEN', n: expect.any(Number) });
    const n = anchored.status === 'WRITTEN' ? anchored.n : 0;
    expect((await verify()).anchor).toMatchObject({ status: 'VERIFIED', n });

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
    await raw(`UPDATE ledger.chain_anchor_heads SET seq = seq + 1 WHERE anchor_n = $1 AND account_id = $2`, [n, b]);
    try {
      const run = await verify();
      expect(run).toMatchObject({ status: 'BROKEN', anchor: { status: 'MISMATCH', n } });
      expect(run.firstBreak).toMatchObject({ kind: 'ANCHOR_MISMATCH', accountId: null });
    } finally {
      await raw(`UPDATE ledger.chain_anchor_heads SET seq = seq - 1 WHERE anchor_n = $1 AND account_id = $2`, [n, b]);
    }
  });

  it('refuses to anchor a rewritten chain; an anchor that signs one anyway is caught by the earliest anchor it contradicts', async () => {
    // b moves between two anchors, so that two anchors recorded a head of b.
    expect((await transfer(t.h, a, b, 700, 0)).status).toBe(200);
    expect(await anchorNow()).toMatchObject({ status: 'WRITTEN' });
    const anchorsOfB = (
      await t.h.admin.query<{ n: string; seq: string }>(
        `SELECT anchor_n AS n, seq FROM ledger.chain_anchor_heads WHERE account_id = $1 ORDER BY anchor_n`,
        [b],
      )
    ).rows;
    expect(anchorsOfB.length).toBeGreaterThanOrEqual(2);
    const [earliest] = anchorsOfB;

    const [first] = await chainOf(b);
    await raw(`UPDATE ledger.ledgers SET amount = amount + 100000 WHERE id = $1`, [first.id]);
    await rechain(b);
    let forged: number | undefined;
    try {
      // The job checks what it would sign: b's head no longer follows from the head anchored for it.
      const before = { anchors: await anchorCount(), refusals: await refusalsCounted(), alerts: alerts.length };
      const refused = await anchorNow();
      expect(refused).toMatchObject({
        status: 'REFUSED',
        code: 'LEDGER_CHAIN_ANCHOR_REFUSED',
        brokenAccounts: 1,
        firstBreak: { kind: 'ANCHOR_MISMATCH', accountId: b, chainSeq: Number(anchorsOfB.at(-1)!.seq) },
      });
      expect(await anchorCount()).toBe(before.anchors);
      expect(await refusalsCounted()).toBe(before.refusals + 1);
      expect(alerts.slice(before.alerts)).toEqual([
        expect.objectContaining({
          code: 'LEDGER_CHAIN_ANCHOR_REFUSED',
          brokenAccounts: 1,
          firstBreak: expect.objectContaining({ accountId: b }),
        }),
      ]);
      // The same forgery at the next pass: refused and counted again, not alerted twice.
      expect(await anchorNow()).toMatchObject({ status: 'REFUSED' });
      expect(await refusalsCounted()).toBe(before.refusals + 2);
      expect(alerts.length).toBe(before.alerts + 1);

      // Signed anyway (the key in other hands, or a job that does not check): the last anchor verifies,
      // and every earlier one that recorded b contradicts the chain; the earliest is named.
      forged = await signWithoutChecking();
      const run = await verify();
      expect(run).toMatchObject({ status: 'BROKEN', brokenAccounts: 1, anchor: { status: 'MISMATCH', n: forged } });
      expect(run.firstBreak).toMatchObject({ kind: 'ANCHOR_MISMATCH', accountId: b, chainSeq: Number(earliest.seq) });
      expect(run.firstBreak.detail).toContain(`anchor ${earliest.n} signed another hash at place ${earliest.seq}`);

      // Rewriting that anchor's records too: they no longer match what it signed, and it is named.
      const [{ hash }] = (
        await t.h.admin.query<{ hash: string }>(
          `SELECT encode(chain_hash, 'hex') AS hash FROM ledger.ledgers WHERE account_id = $1 AND chain_seq = $2`,
          [b, earliest.seq],
        )
      ).rows;
      const [{ original }] = await raw(
        `SELECT encode(hash, 'hex') AS original FROM ledger.chain_anchor_heads WHERE account_id = $1 AND anchor_n = $2`,
        [b, earliest.n],
      );
      await raw(`UPDATE ledger.chain_anchor_heads SET hash = decode($3, 'hex') WHERE account_id = $1 AND anchor_n = $2`, [
        b,
        earliest.n,
        hash,
      ]);
      try {
        const recorded = await verify();
        expect(recorded).toMatchObject({ status: 'BROKEN', anchor: { status: 'MISMATCH' } });
        expect(recorded.firstBreak).toMatchObject({
          kind: 'ANCHOR_MISMATCH',
          accountId: null,
          detail: `the heads recorded for anchor ${earliest.n} are not the ones it signed`,
        });
      } finally {
        await raw(`UPDATE ledger.chain_anchor_heads SET hash = decode($3, 'hex') WHERE account_id = $1 AND anchor_n = $2`, [
          b,
          earliest.n,
          original,
        ]);
      }
    } finally {
      if (forged) await dropAnchor(forged);
      await raw(`UPDATE ledger.ledgers SET amount = amount - 100000 WHERE id = $1`, [first.id]);
      await rechain(b);
    }
    expect(await verify()).toMatchObject({ status: 'INTACT', anchor: { status: 'VERIFIED' } });
  });

  it('recomputes the links written since the previous anchor before it signs, however old their time', async () => {
    expect((await transfer(t.h, b, c, 300, 0)).status).toBe(200);
    const newest = (await chainOf(c)).at(-1)!;
    // An entry written after the anchor, edited in place: its own hash no longer holds.
    await raw(`UPDATE ledger.ledgers SET amount = amount + 1 WHERE id = $1`, [newest.id]);
    try {
      expect(await anchorNow()).toMatchObject({
        status: 'REFUSED',
        firstBreak: { kind: 'EDITED', accountId: c, entryId: newest.id, chainSeq: Number(newest.seq) },
      });
    } finally {
      await raw(`UPDATE ledger.ledgers SET amount = amount - 1 WHERE id = $1`, [newest.id]);
    }
    // Entries dated a day back (a hand-written statement may be), correctly linked: outside the time
    // window the job reads first, found by its second read of the account, and signed.
    await raw(`UPDATE ledger.ledgers SET created_at = created_at - interval '1 day' WHERE transaction_id = $1`, [newest.transaction_id]);
    await rechain(b);
    await rechain(c);
    const written = await anchorNow();
    expect(written).toMatchObject({ status: 'WRITTEN', moved: expect.any(Number) });
    expect(await verify()).toMatchObject({
      status: 'INTACT',
      anchor: { status: 'VERIFIED', n: written.status === 'WRITTEN' ? written.n : 0 },
    });
  });

  it('does not build on a previous anchor whose records no longer say what it signed', async () => {
    expect((await transfer(t.h, c, a, 200, 0)).status).toBe(200);
    const [{ n, account_id: account }] = (
      await t.h.admin.query<{ n: string; account_id: string }>(
        `SELECT anchor_n AS n, account_id FROM ledger.chain_anchor_heads WHERE anchor_n = (SELECT max(n) FROM ledger.chain_anchors) LIMIT 1`,
      )
    ).rows;
    // the job builds on its copy of the anchored heads (chain_anchored_heads), checked against the signed digest
    await raw(`UPDATE ledger.chain_anchored_heads SET seq = seq + 1 WHERE account_id = $1`, [account]);
    try {
      expect(await anchorNow()).toMatchObject({
        status: 'REFUSED',
        firstBreak: { kind: 'ANCHOR_MISMATCH', accountId: null, detail: `the heads recorded for anchor ${n} are not the ones it signed` },
      });
    } finally {
      await raw(`UPDATE ledger.chain_anchored_heads SET seq = seq - 1 WHERE account_id = $1`, [account]);
    }
    expect(await anchorNow()).toMatchObject({ status: 'WRITTEN', n: Number(n) + 1 });
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

  // Last: it leaves a refused anchor pass behind (counted, alerted).
  it('names a balanced raw insert made with the triggers on UNTRACEABLE, and the anchor job refuses to sign it', async () => {
    const heads = (await t.h.admin.query(`SELECT id, chain_seq, chain_head FROM ledger.accounts WHERE id = ANY($1::uuid[])`, [[a, b]]))
      .rows;
    const tx = randomUUID();
    const [debit, credit] = [randomUUID(), randomUUID()];
    // one transaction, every trigger on: the chain trigger links both entries at their accounts' heads
    await t.h.admin.query('BEGIN');
    await t.h.admin.query(
      `INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at)
       VALUES ($1, 'MMPTX261122YYYYYYY', 'TRANSFER', 500, 0, 'XAF', 'intruder', now(), now())`,
      [tx],
    );
    await t.h.admin.query(
      `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
       VALUES ($2, $1, $4, 'DEBIT', 500, 'XAF', $3, 'intruder'), ($3, $1, $5, 'CREDIT', 500, 'XAF', $2, 'intruder')`,
      [tx, debit, credit, a, b],
    );
    await t.h.admin.query(
      `UPDATE ledger.accounts SET balance = balance + d.delta, available_balance = available_balance + d.delta
         FROM (VALUES ($1::uuid, -500), ($2::uuid, 500)) AS d (id, delta) WHERE accounts.id = d.id`,
      [a, b],
    );
    await t.h.admin.query('COMMIT');
    try {
      const linked = (await t.h.admin.query(`SELECT chain_hash FROM ledger.ledgers WHERE transaction_id = $1`, [tx])).rows;
      expect(linked.every((r) => r.chain_hash !== null)).toBe(true);
      const run = await verify();
      expect(run).toMatchObject({ status: 'BROKEN', brokenAccounts: 2 });
      expect(run.firstBreak).toMatchObject({ kind: 'UNTRACEABLE', transactionId: tx, referenceId: 'MMPTX261122YYYYYYY' });
      expect(run.breaks.map((x: { entryId: string }) => x.entryId).sort()).toEqual([debit, credit].sort());
      expect(await anchorNow()).toMatchObject({ status: 'REFUSED', firstBreak: { kind: 'UNTRACEABLE', transactionId: tx } });
    } finally {
      await raw(`DELETE FROM ledger.ledgers WHERE transaction_id = $1`, [tx]);
      await raw(`DELETE FROM ledger.transactions WHERE id = $1`, [tx]);
      await raw(
        `UPDATE ledger.accounts SET balance = balance + d.delta, available_balance = available_balance + d.delta
                   FROM (VALUES ($1::uuid, 500), ($2::uuid, -500)) AS d (id, delta) WHERE accounts.id = d.id`,
        [a, b],
      );
      for (const h of heads)
        await raw(`UPDATE ledger.accounts SET chain_seq = $2, chain_head = $3 WHERE id = $1`, [h.id, h.chain_seq, h.chain_head]);
    }
    expect((await verify()).status).toBe('INTACT');
  });

  // Last: the anchors it writes are signed with a key the file's ledger does not hold.
  it('keeps every anchor verifiable across a change of key, with the old key kept to verify only', async () => {
    const NEW_KEY = 'rotated-ledger-chain-anchor-key-fedcba9876543210';
    const app = t.h.app.app;
    /** The ledger's anchor job and verification as a ledger configured with these keys runs them. */
    const ledgerWith = (keys: Partial<LedgerWalletsConfig>) => {
      const config = Object.assign(Object.create(app.get(LedgerWalletsConfig)) as LedgerWalletsConfig, keys);
      const anchors = new ChainAnchors(app.get(LedgerDb), config, app.get(ComplianceChannel), new MetricsService());
      return { anchors, verifier: new ChainVerifier(app.get(LedgerDb), anchors, new MetricsService()) };
    };
    const oldId = keyIdOf(Buffer.from(ANCHOR_KEY));
    expect(() => new AnchorKeyring(Buffer.from(NEW_KEY), `deadbeef:${ANCHOR_KEY}`)).toThrow(/key id deadbeef for a key whose id is/);

    const rotated = ledgerWith({ LEDGER_CHAIN_ANCHOR_KEY: NEW_KEY, LEDGER_CHAIN_ANCHOR_RETIRED_KEYS: `${oldId}:${ANCHOR_KEY}` });
    expect((await transfer(t.h, a, c, 300, 0)).status).toBe(200);
    const written = await rotated.anchors.anchorNow();
    expect(written).toMatchObject({ status: 'WRITTEN' });
    const n = written.status === 'WRITTEN' ? written.n : 0;
    const keyIds = (await t.h.admin.query<{ key_id: string }>(`SELECT DISTINCT key_id FROM ledger.chain_anchors`)).rows.map(
      (r) => r.key_id,
    );
    expect(keyIds.sort()).toEqual([oldId, keyIdOf(Buffer.from(NEW_KEY))].sort());
    expect(await rotated.verifier.verify()).toMatchObject({ status: 'INTACT', anchor: { status: 'VERIFIED', n } });

    // without the retired key, the anchors it signed cannot be checked: broken, and nothing more is signed
    const forgetful = ledgerWith({ LEDGER_CHAIN_ANCHOR_KEY: NEW_KEY, LEDGER_CHAIN_ANCHOR_RETIRED_KEYS: undefined });
    const run = await forgetful.verifier.verify();
    expect(run).toMatchObject({ status: 'BROKEN', anchor: { status: 'MISMATCH' } });
    expect(run.firstBreak).toMatchObject({
      kind: 'ANCHOR_MISMATCH',
      accountId: null,
      detail: expect.stringContaining(`names key ${oldId}`),
    });
    expect((await transfer(t.h, a, c, 300, 0)).status).toBe(200);
    expect(await ledgerWith({ LEDGER_CHAIN_ANCHOR_KEY: ANCHOR_KEY }).anchors.anchorNow()).toMatchObject({
      status: 'REFUSED',
      firstBreak: { kind: 'ANCHOR_MISMATCH', detail: expect.stringContaining('which this ledger does not hold') },
    });
    expect(await rotated.anchors.anchorNow()).toMatchObject({ status: 'WRITTEN', n: n + 1 });
  });
});
