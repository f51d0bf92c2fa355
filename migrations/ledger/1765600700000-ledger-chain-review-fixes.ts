import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger chain's verification records every broken account's earliest break, not only the
 * first one (docs/ledger-chain.md#verification): `chain_verifications.breaks`, a JSON array of at
 * most 50 breaks, earliest first. Null on the runs recorded before it (their `first_break` stands).
 */
export class LedgerChainReviewFixes1765600700000 implements MigrationInterface {
  name = 'LedgerChainReviewFixes1765600700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE ledger.chain_verifications ADD COLUMN breaks jsonb CHECK (jsonb_typeof(breaks) = 'array' AND jsonb_array_length(breaks) <= 50)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ledger.chain_verifications DROP COLUMN IF EXISTS breaks`);
  }
}
