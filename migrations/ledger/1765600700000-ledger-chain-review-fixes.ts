import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const CHAIN_ENTRY = 'ledger.chain_entry()';
const HEAD_READ = 'SELECT a.chain_seq, a.chain_head INTO v_seq, v_head FROM ledger.accounts a WHERE a.id = NEW.account_id;';
const HEAD_READ_LOCKED =
  'SELECT a.chain_seq, a.chain_head INTO v_seq, v_head FROM ledger.accounts a WHERE a.id = NEW.account_id FOR UPDATE;';

/** Rewrites `fn` as the database holds it, `from` replaced by `to` exactly once. */
async function swap(q: QueryRunner, fn: string, from: string, to: string): Promise<void> {
  const [{ def }] = (await q.query(`SELECT pg_get_functiondef($1::regprocedure) AS def`, [fn])) as { def: string }[];
  if (def.split(from).length !== 2) throw new Error(`${fn} does not contain, once: ${from}`);
  await q.query(def.replace(from, () => to));
}

/**
 * Review fixes of the ledger chain (docs/ledger-chain.md):
 *
 * - `chain_verifications.breaks`: every broken account's earliest break, at most 50, earliest first
 *   (null on the runs recorded before; their `first_break` stands).
 * - `chain_anchored_heads`: per account, the head the latest anchor recorded, kept by the anchor job
 *   in the transaction that writes the anchor, so that a pass reads one row per account instead of
 *   every row of `chain_anchor_heads` (which only grows). It is a cache the job trusts only after
 *   checking it against the signed heads digest of the last anchor; filled here from the history.
 *   The runtime role may read, insert and update it.
 * - the chain trigger reads an account's head FOR UPDATE: every writer locks the account row before
 *   writing its entries, so this costs nothing, and a writer that did not cannot chain two entries
 *   at one place.
 */
export class LedgerChainReviewFixes1765600700000 implements MigrationInterface {
  name = 'LedgerChainReviewFixes1765600700000';

  async up(q: QueryRunner): Promise<void> {
    const role = `"${SERVICES['ledger-wallets'].role}"`;
    await q.query(
      `ALTER TABLE ledger.chain_verifications ADD COLUMN breaks jsonb CHECK (jsonb_typeof(breaks) = 'array' AND jsonb_array_length(breaks) <= 50)`,
    );

    await q.query(`
      CREATE TABLE ledger.chain_anchored_heads (
        account_id uuid PRIMARY KEY REFERENCES ledger.accounts (id),
        anchor_n bigint NOT NULL REFERENCES ledger.chain_anchors (n),
        seq bigint NOT NULL CHECK (seq >= 1),
        hash bytea NOT NULL CHECK (octet_length(hash) = 32)
      )`);
    await q.query(`
      INSERT INTO ledger.chain_anchored_heads (account_id, anchor_n, seq, hash)
      SELECT DISTINCT ON (account_id) account_id, anchor_n, seq, hash FROM ledger.chain_anchor_heads ORDER BY account_id, anchor_n DESC`);
    await q.query(`REVOKE DELETE, TRUNCATE ON ledger.chain_anchored_heads FROM ${role}`);

    await swap(q, CHAIN_ENTRY, HEAD_READ, HEAD_READ_LOCKED);
  }

  async down(q: QueryRunner): Promise<void> {
    await swap(q, CHAIN_ENTRY, HEAD_READ_LOCKED, HEAD_READ);
    await q.query(`DROP TABLE IF EXISTS ledger.chain_anchored_heads`);
    await q.query(`ALTER TABLE ledger.chain_verifications DROP COLUMN IF EXISTS breaks`);
  }
}
