import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each anchor of the ledger chain signs the rows it adds to `chain_anchor_heads` (docs/ledger-chain.md,
 * "Anchors and the key"). Until now an anchor signed only the digest of every account's head, which
 * the verification could recompute for the last anchor alone (all heads at every anchor would be one
 * pass over every account per anchor); the rows of earlier anchors were then not authenticated, and
 * a superuser could rewrite them to agree with a rewritten history.
 *
 * `moved_digest` is the sha256 of the anchor's own rows (`<account>:<seq>:<hash>\n` by account id),
 * and the anchor's MAC covers it: the verification checks every anchor's rows in one pass over
 * `chain_anchor_heads` in primary-key order. Null: an anchor signed before this column, whose MAC
 * does not cover its rows (the verification says so).
 *
 * No grant to add: the runtime role's INSERT and SELECT are granted on the table, and the
 * append-only triggers cover every column.
 */
export class ChainAnchorMovedDigest1765600400000 implements MigrationInterface {
  name = 'ChainAnchorMovedDigest1765600400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE ledger.chain_anchors
        ADD COLUMN moved_digest bytea CONSTRAINT "CHK_chain_anchors_moved_digest" CHECK (octet_length(moved_digest) = 32)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.chain_anchors DROP COLUMN moved_digest`);
  }
}
