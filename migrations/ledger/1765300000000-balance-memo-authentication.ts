import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/** A piece of a function's text and what replaces it. */
type Swap = readonly [from: string, to: string];

/**
 * Rewrites a function as the database holds it (pg_get_functiondef), each `from` replaced by its
 * `to` exactly once (anything else is refused), as migration 1765000000000 does: the lines that do
 * not change are not written out again here, and `down` gets back the very text `up` started from.
 */
async function swapLines(q: QueryRunner, fn: string, swaps: readonly Swap[]): Promise<void> {
  const [{ def }] = (await q.query(`SELECT pg_get_functiondef($1::regprocedure) AS def`, [fn])) as { def: string }[];
  let swapped = def;
  for (const [from, to] of swaps) {
    if (swapped.split(from).length !== 2) throw new Error(`${fn} does not contain, once: ${from}`);
    swapped = swapped.replace(from, () => to);
  }
  await q.query(swapped);
}

const reversed = (swaps: readonly Swap[]): Swap[] => swaps.map(([from, to]) => [to, from] as const).reverse();

const CHECK = 'ledger.check_transaction_balance()';
const FORGET = 'ledger.forget_balanced_transaction()';

/** The key, 128 bits, held as the values of two sequences only their owner may read. */
const KEY_SEQUENCES = ['ledger.balance_memo_key_a', 'ledger.balance_memo_key_b'] as const;

/**
 * The authentication code of one memo entry, in hex: the first 128 bits of
 * sha256(key ‖ transaction id ‖ generation ‖ database transaction), the three in their fixed-length
 * binary forms. The message has one length and the digest is cut, so a known code cannot be
 * extended into another one (sha256's length extension). Every part is a function call, so
 * PL/pgSQL evaluates it without starting an executor.
 */
const MAC =
  "mac := encode(substr(sha256(int8send(pg_sequence_last_value('ledger.balance_memo_key_a')) || int8send(pg_sequence_last_value('ledger.balance_memo_key_b')) || uuid_send(tx) || int8send(currval('ledger.balance_memo_generation')) || xid8send(pg_current_xact_id())), 1, 16), 'hex');";

/** Characters of one memo entry: a space, the transaction id (36), a colon, the code (32). */
const ENTRY = 70;

/** `check_transaction_balance` after migration 1765000000000, and with an authenticated memo. */
const CHECK_SWAPS: readonly Swap[] = [
  ['memo text;', 'memo text;\n        mac text;'],
  [
    "IF position(' ' || tx::text IN coalesce(current_setting('ledger.balanced_transaction', true), '')) > 0 THEN RETURN NULL; END IF;",
    // Only a memo entry that carries its code is trusted: the ledger's role may write the setting,
    // it cannot compute the code. The key is read only when the memo names the transaction.
    `IF position(' ' || tx::text || ':' IN coalesce(current_setting('ledger.balanced_transaction', true), '')) > 0 THEN
          ${MAC}
          IF position(' ' || tx::text || ':' || mac IN current_setting('ledger.balanced_transaction', true)) > 0 THEN RETURN NULL; END IF;
        END IF;`,
  ],
  [
    "memo := set_config('ledger.balanced_transaction', right(coalesce(current_setting('ledger.balanced_transaction', true), '') || ' ' || tx::text, 64 * 37), true);",
    `${MAC}
        memo := set_config('ledger.balanced_transaction', right(coalesce(current_setting('ledger.balanced_transaction', true), '') || ' ' || tx::text || ':' || mac, 64 * ${ENTRY}), true);`,
  ],
];

/** `forget_balanced_transaction` moves the generation every time entries are inserted. */
const FORGET_SWAPS: readonly Swap[] = [
  [
    "memo := set_config('ledger.balanced_transaction', '', true);",
    `PERFORM nextval('ledger.balance_memo_generation');
        memo := set_config('ledger.balanced_transaction', '', true);`,
  ],
];

/**
 * The double-entry check's memo, authenticated (docs/ledger.md "Rules the database enforces"). The
 * check at COMMIT (`check_transaction_balance`, migrations 1764000100000 and 1765000000000) skips a
 * transaction named in the transaction-local setting `ledger.balanced_transaction`, which it writes
 * after finding the transaction balanced so that the entries' own events need no query. Any session
 * may write that setting, the ledger's role included: naming a one-sided transaction there
 * committed it.
 *
 * Now each memo entry is `<tx>:<code>`, the code computed with a key the ledger's role cannot read
 * (the owner's alone, see below), and the two trigger functions run as their owner
 * (SECURITY DEFINER, with a fixed search_path so that the caller's temporary objects are not looked
 * up first). An entry whose code does not verify is ignored and the transaction is summed.
 *
 * The code also covers a generation, `ledger.balance_memo_generation`, moved by every statement that
 * inserts entries (the statement trigger that already cleared the memo), and which the ledger's role
 * can neither move nor read: a genuine entry written by a check forced early (SET CONSTRAINTS …
 * IMMEDIATE), saved and written back after more entries were inserted, no longer verifies. It also
 * covers the database transaction, so an entry is worth nothing outside the one that wrote it.
 *
 * Where the key lives: in two sequences that belong to the owner, which the ledger's role may
 * neither read nor change, read with pg_sequence_last_value. A one-row table would hold it as well,
 * but reading it is a query at every entry's check: an executor started by PL/pgSQL, in a
 * SERIALIZABLE transaction a predicate lock on the one row every COMMIT reads, and under the
 * money path's enable_seqscan off a plan priced high enough to be JIT-compiled at every COMMIT
 * unless it goes through an index. A sequence's value is a function call away. The sequences are
 * never advanced; their 128 bits come from gen_random_uuid() (PostgreSQL's strong random source,
 * which setseed() does not touch), hashed, and never appear in a statement's text, a result or a
 * log line. What the codes cost per confirm is in docs/performance.md.
 */
export class BalanceMemoAuthentication1765300000000 implements MigrationInterface {
  name = 'BalanceMemoAuthentication1765300000000';

  async up(q: QueryRunner): Promise<void> {
    const runtime = `"${SERVICES['ledger-wallets'].role}"`;
    for (const seq of KEY_SEQUENCES) {
      await q.query(`CREATE SEQUENCE ${seq} AS bigint MINVALUE -9223372036854775808 NO CYCLE`);
      await q.query(`COMMENT ON SEQUENCE ${seq} IS
        'half of the key of the double-entry check''s memo codes (migration 1765300000000); never advanced, the owner''s alone'`);
    }
    // Set inside the database: the key is never sent by or to the client.
    await q.query(`
      DO $$
      DECLARE h text := encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex');
      BEGIN
        PERFORM setval('${KEY_SEQUENCES[0]}', ('x' || substr(h, 1, 16))::bit(64)::bigint, true);
        PERFORM setval('${KEY_SEQUENCES[1]}', ('x' || substr(h, 17, 16))::bit(64)::bigint, true);
      END $$`);
    // Values cached per session: nextval on every entry statement does not contend on one page.
    await q.query(`CREATE SEQUENCE ledger.balance_memo_generation AS bigint CACHE 64`);
    // The default privileges of the schema would give the ledger's role USAGE.
    for (const seq of [...KEY_SEQUENCES, 'ledger.balance_memo_generation']) {
      await q.query(`REVOKE ALL ON SEQUENCE ${seq} FROM PUBLIC, ${runtime}`);
    }

    await swapLines(q, CHECK, CHECK_SWAPS);
    await swapLines(q, FORGET, FORGET_SWAPS);
    for (const fn of [CHECK, FORGET]) await q.query(`ALTER FUNCTION ${fn} SECURITY DEFINER SET search_path = ledger, pg_temp`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const fn of [CHECK, FORGET]) await q.query(`ALTER FUNCTION ${fn} SECURITY INVOKER RESET search_path`);
    await swapLines(q, FORGET, reversed(FORGET_SWAPS));
    await swapLines(q, CHECK, reversed(CHECK_SWAPS));
    for (const seq of ['ledger.balance_memo_generation', ...KEY_SEQUENCES]) await q.query(`DROP SEQUENCE IF EXISTS ${seq}`);
  }
}
