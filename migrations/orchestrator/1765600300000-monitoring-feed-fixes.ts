import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const ROLE = SERVICES.orchestrator.role;

/**
 * What the monitoring feed keeps beside its operations and alerts (docs/monitoring.md#the-feed):
 *
 * - an alert says how many operations were behind its hit (`operations_total`) and whether the ones
 *   it names were cut (`truncated`);
 * - a rule that fails is one row per rule and batch with its number of `occurrences`;
 * - events the feed refuses are kept (`monitoring_feed_rejects`, append-only), once per distinct event;
 * - a batch that used up its queue attempts is kept as a dead letter (`monitoring_dead_letters`)
 *   until a replay stores it; only its replay columns ever change.
 */
export class MonitoringFeedFixes1765600300000 implements MigrationInterface {
  name = 'MonitoringFeedFixes1765600300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orchestrator.monitoring_alerts ADD COLUMN operations_total integer, ADD COLUMN truncated boolean`);
    // Alerts are append-only by trigger: the rows written before these columns are filled with it off
    // (at most 200 transactions were named then; one that names 200 may have been cut).
    await q.query(`ALTER TABLE orchestrator.monitoring_alerts DISABLE TRIGGER trg_monitoring_alerts_append_only`);
    await q.query(
      `UPDATE orchestrator.monitoring_alerts SET operations_total = cardinality(transaction_ids), truncated = cardinality(transaction_ids) >= 200`,
    );
    await q.query(`ALTER TABLE orchestrator.monitoring_alerts ENABLE TRIGGER trg_monitoring_alerts_append_only`);
    await q.query(`
      ALTER TABLE orchestrator.monitoring_alerts
        ALTER COLUMN operations_total SET NOT NULL, ALTER COLUMN truncated SET NOT NULL,
        ADD CONSTRAINT monitoring_alerts_operations_total_check CHECK (operations_total >= cardinality(transaction_ids)),
        ADD CONSTRAINT monitoring_alerts_truncated_check CHECK (truncated OR operations_total = cardinality(transaction_ids))`);

    await q.query(`
      ALTER TABLE orchestrator.monitoring_rule_failures
        ADD COLUMN occurrences integer NOT NULL DEFAULT 1 CHECK (occurrences >= 1),
        ADD COLUMN batch_id text CHECK (length(batch_id) BETWEEN 1 AND 128)`);

    // One row per distinct refused event (its SHA-256 over the JSON received): a batch delivered
    // again adds nothing.
    await q.query(`
      CREATE TABLE orchestrator.monitoring_feed_rejects (
        id          bigserial PRIMARY KEY,
        fingerprint text NOT NULL UNIQUE CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
        reason      text NOT NULL CHECK (reason ~ '^[A-Z][A-Z_]{1,39}$'),
        event_id    text CHECK (length(event_id) <= 64),
        batch_id    text CHECK (length(batch_id) BETWEEN 1 AND 128),
        -- the event as received, or its first 4 KiB when larger (the column is bounded)
        event       jsonb NOT NULL CHECK (octet_length(event::text) <= 16384),
        at          timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX monitoring_feed_rejects_at_idx ON orchestrator.monitoring_feed_rejects (at DESC, id DESC)`);
    await q.query(`
      CREATE TRIGGER trg_monitoring_feed_rejects_append_only BEFORE UPDATE OR DELETE ON orchestrator.monitoring_feed_rejects
        FOR EACH ROW EXECUTE FUNCTION orchestrator.monitoring_append_only()`);
    await q.query(`
      CREATE TRIGGER trg_monitoring_feed_rejects_no_truncate BEFORE TRUNCATE ON orchestrator.monitoring_feed_rejects
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.monitoring_append_only()`);
    // default privileges gave the runtime role every row privilege: it appends and reads
    await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON orchestrator.monitoring_feed_rejects FROM ${ROLE}`);

    await q.query(`
      CREATE TABLE orchestrator.monitoring_dead_letters (
        job_id         text PRIMARY KEY CHECK (length(job_id) BETWEEN 1 AND 128),
        events         jsonb NOT NULL CHECK (jsonb_typeof(events) = 'array'),
        attempts       integer NOT NULL CHECK (attempts >= 1),
        error          text NOT NULL CHECK (length(error) BETWEEN 1 AND 1000),
        failed_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
        replay_attempts integer NOT NULL DEFAULT 0 CHECK (replay_attempts >= 0),
        replay_error   text CHECK (length(replay_error) BETWEEN 1 AND 1000),
        replayed_at    timestamptz,
        -- counts of the replay that stored it
        replay_result  jsonb CHECK (jsonb_typeof(replay_result) = 'object'),
        CHECK ((replayed_at IS NULL) = (replay_result IS NULL))
      )`);
    await q.query(
      `CREATE INDEX monitoring_dead_letters_pending_idx ON orchestrator.monitoring_dead_letters (failed_at) WHERE replayed_at IS NULL`,
    );
    await q.query(`
      CREATE FUNCTION orchestrator.monitoring_dead_letters_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_LEVEL = 'STATEMENT' OR TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'orchestrator.monitoring_dead_letters: % operation forbidden', TG_OP USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.replayed_at IS NOT NULL THEN
          RAISE EXCEPTION 'orchestrator.monitoring_dead_letters %: a replayed batch never changes', OLD.job_id USING ERRCODE = 'restrict_violation';
        END IF;
        IF (NEW.job_id, NEW.events, NEW.attempts, NEW.error, NEW.failed_at) IS DISTINCT FROM (OLD.job_id, OLD.events, OLD.attempts, OLD.error, OLD.failed_at)
           OR NEW.replay_attempts < OLD.replay_attempts THEN
          RAISE EXCEPTION 'orchestrator.monitoring_dead_letters %: only its replay is recorded', OLD.job_id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_monitoring_dead_letters_guard BEFORE UPDATE OR DELETE ON orchestrator.monitoring_dead_letters
        FOR EACH ROW EXECUTE FUNCTION orchestrator.monitoring_dead_letters_guard()`);
    await q.query(`
      CREATE TRIGGER trg_monitoring_dead_letters_no_truncate BEFORE TRUNCATE ON orchestrator.monitoring_dead_letters
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.monitoring_dead_letters_guard()`);
    await q.query(`REVOKE DELETE, TRUNCATE ON orchestrator.monitoring_dead_letters FROM ${ROLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS orchestrator.monitoring_dead_letters, orchestrator.monitoring_feed_rejects`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.monitoring_dead_letters_guard()`);
    await q.query(`ALTER TABLE orchestrator.monitoring_rule_failures DROP COLUMN IF EXISTS occurrences, DROP COLUMN IF EXISTS batch_id`);
    await q.query(
      `ALTER TABLE orchestrator.monitoring_alerts DROP CONSTRAINT IF EXISTS monitoring_alerts_truncated_check,
         DROP CONSTRAINT IF EXISTS monitoring_alerts_operations_total_check, DROP COLUMN IF EXISTS operations_total, DROP COLUMN IF EXISTS truncated`,
    );
  }
}
