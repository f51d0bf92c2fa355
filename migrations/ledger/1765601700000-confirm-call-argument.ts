import type { MigrationInterface, QueryRunner } from 'typeorm';
import { BATCH, CONFIRM, PROCEDURE } from './1765601200000-payee-balance-cap';

/*
 * The confirm takes one composite argument, and the account rules are stated once, in SQL
 * (docs/ledger.md, "Execution rules"; docs/architecture.md, "The ledger's SQL").
 *
 * - `ledger.execute_confirm(ledger.confirm_call)` instead of 38 positional parameters, the procedure
 *   `ledger.confirm_checked(lock keys, release keys, lock timeout, ledger.confirm_call)` and the batch
 *   `ledger.execute_confirm_batch(ledger.confirm_call[])`: one shape for a confirm alone and for each
 *   confirm of a batch.
 * - No rules parameter: the functions ask `ledger.account_rules_refusal`, which holds the rules
 *   (the service no longer has a copy of them).
 *
 * This migration only drops the old signatures; the new functions are the repeatable files of
 * apps/ledger-wallets/sql, which `npm run migrate` applies right after. `down` drops them and puts
 * back the texts of migration 1765601200000.
 */
const OLD_CONFIRM =
  'ledger.execute_confirm(uuid, text[], timestamptz, uuid[], uuid, uuid, bigint, bigint, bigint, text, uuid, uuid, uuid, bigint, jsonb, uuid, text, text, text, text, text, jsonb, text, jsonb, jsonb, text, text, text, jsonb, uuid, text, jsonb, text, text, text, integer, text, integer)';
const OLD_PROCEDURE = `ledger.confirm_checked(bigint[], bigint[], integer, ${OLD_CONFIRM.slice('ledger.execute_confirm('.length, -1)})`;

export class ConfirmCallArgument1765601700000 implements MigrationInterface {
  name = 'ConfirmCallArgument1765601700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE ${OLD_PROCEDURE}`);
    await q.query(`DROP FUNCTION ${OLD_CONFIRM}`);
    await q.query(`DROP FUNCTION ledger.execute_confirm_batch(jsonb, jsonb)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE IF EXISTS ledger.confirm_checked(bigint[], bigint[], integer, ledger.confirm_call)`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.execute_confirm(ledger.confirm_call)`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.execute_confirm_batch(ledger.confirm_call[])`);
    await q.query(
      `DROP FUNCTION IF EXISTS ledger.account_rules_refusal(text, text, text, uuid, uuid, bigint, text, bigint, text, text, uuid)`,
    );
    await q.query(CONFIRM);
    await q.query(PROCEDURE);
    await q.query(BATCH);
  }
}
