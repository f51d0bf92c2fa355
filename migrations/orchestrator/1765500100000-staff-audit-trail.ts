import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/**
 * The staff audit trail (docs/staff-audit.md "What is recorded"): per staff write a `started` row
 * (written before it runs) and an `outcome` row, per staff read of a person's data an `outcome`
 * row, chained by hash so that a deleted or edited row is found by
 * `orchestrator.staff_audit_verify()`.
 *
 * The database, not the application, numbers and chains the rows. A BEFORE INSERT trigger locks
 * the one row of `staff_audit_chain_head` (FOR UPDATE, held until the inserting transaction ends),
 * so writers take turns: each row gets seq = the head's seq + 1, the time of the database clock,
 * prev_hash = the head's hash and hash = sha256(prev_hash || its canonical text), whatever the
 * INSERT said. A writer that rolls back rolls the head back too, so seq has no gaps. The head also
 * lets the check notice a deleted LAST row, which leaves no broken link behind it.
 *
 * Append-only: triggers refuse UPDATE, DELETE and TRUNCATE of the trail, and anything but the
 * chaining trigger's own UPDATE of the head. The runtime role may INSERT and SELECT the trail and
 * only SELECT the head (the trigger runs as its owner, SECURITY DEFINER with a fixed search_path).
 */
export class StaffAuditTrail1765500100000 implements MigrationInterface {
  name = 'StaffAuditTrail1765500100000';

  async up(q: QueryRunner): Promise<void> {
    const role = SERVICES.orchestrator.role;
    await q.query(`
      CREATE TABLE orchestrator.staff_audit_trail (
        seq bigint PRIMARY KEY,
        at timestamptz NOT NULL,
        actor_user_id uuid NOT NULL,
        actor_role text NOT NULL,
        action text NOT NULL,
        action_name text,
        target_type text,
        target_id text,
        reason text,
        request_id text NOT NULL,
        phase text NOT NULL DEFAULT 'outcome',
        outcome_status int,
        outcome_code text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        prev_hash bytea NOT NULL,
        hash bytea NOT NULL,
        CONSTRAINT "CHK_staff_audit_trail_seq" CHECK (seq > 0),
        CONSTRAINT "CHK_staff_audit_trail_phase" CHECK (phase IN ('started', 'outcome')),
        -- a started record is written before the handler runs: it has no outcome yet
        CONSTRAINT "CHK_staff_audit_trail_outcome" CHECK ((phase = 'started') = (outcome_status IS NULL))
      )`);
    await q.query(`CREATE INDEX "IDX_staff_audit_trail_actor" ON orchestrator.staff_audit_trail (actor_user_id, seq)`);
    await q.query(
      `CREATE INDEX "IDX_staff_audit_trail_target" ON orchestrator.staff_audit_trail (target_type, target_id, seq) WHERE target_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_staff_audit_trail_request" ON orchestrator.staff_audit_trail (request_id)`);
    await q.query(`CREATE INDEX "IDX_staff_audit_trail_at" ON orchestrator.staff_audit_trail (at)`);

    await q.query(`
      CREATE TABLE orchestrator.staff_audit_chain_head (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        last_seq bigint NOT NULL,
        last_hash bytea NOT NULL
      )`);
    // The genesis: 32 zero bytes stand before the first record.
    await q.query(
      `INSERT INTO orchestrator.staff_audit_chain_head (id, last_seq, last_hash) VALUES (true, 0, decode(repeat('00', 32), 'hex'))`,
    );

    // Anchors: the orchestrator's signed note of a verified (seq, hash), HMAC-SHA256 under
    // STAFF_AUDIT_ANCHOR_KEY, which the database never sees. Each anchor's MAC also covers the MAC of
    // the anchor before (n - 1), so an anchor removed from the middle is found too. The database
    // only stores them: it cannot make one that verifies.
    await q.query(`
      CREATE TABLE orchestrator.staff_audit_anchors (
        n bigint PRIMARY KEY CHECK (n > 0),
        seq bigint NOT NULL CHECK (seq > 0),
        hash bytea NOT NULL,
        at timestamptz NOT NULL,
        mac bytea NOT NULL
      )`);

    // The text a record's hash covers: every column but the hashes, as a JSON array (jsonb's text
    // form is canonical: keys sorted, one spelling per value), the time in UTC to the microsecond
    // whatever the session's time zone.
    await q.query(`
      CREATE FUNCTION orchestrator.staff_audit_canonical(r orchestrator.staff_audit_trail) RETURNS text
      LANGUAGE sql STABLE SET search_path = orchestrator, pg_temp AS $$
        SELECT jsonb_build_array(
          r.seq, to_char(r.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), r.actor_user_id, r.actor_role,
          r.action, r.action_name, r.target_type, r.target_id, r.reason, r.request_id, r.phase,
          r.outcome_status, r.outcome_code, r.details
        )::text
      $$`);
    await q.query(`
      CREATE FUNCTION orchestrator.staff_audit_chain() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path = orchestrator, pg_temp AS $$
      DECLARE head orchestrator.staff_audit_chain_head;
      BEGIN
        SELECT * INTO head FROM orchestrator.staff_audit_chain_head WHERE id FOR UPDATE;
        NEW.seq := head.last_seq + 1;
        NEW.at := clock_timestamp();
        NEW.prev_hash := head.last_hash;
        NEW.hash := sha256(head.last_hash || convert_to(orchestrator.staff_audit_canonical(NEW), 'UTF8'));
        UPDATE orchestrator.staff_audit_chain_head SET last_seq = NEW.seq, last_hash = NEW.hash WHERE id;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_staff_audit_trail_chain BEFORE INSERT ON orchestrator.staff_audit_trail
      FOR EACH ROW EXECUTE FUNCTION orchestrator.staff_audit_chain()`);

    await q.query(`
      CREATE FUNCTION orchestrator.staff_audit_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The head moves only under the chaining trigger (a nested trigger call); nothing else
        -- may rewrite the trail or the head.
        IF TG_TABLE_NAME = 'staff_audit_chain_head' AND TG_OP = 'UPDATE' AND pg_trigger_depth() > 1 THEN
          RETURN NEW;
        END IF;
        RAISE EXCEPTION '%.% is append-only: % operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP
          USING ERRCODE = 'restrict_violation';
      END $$`);
    for (const table of ['staff_audit_trail', 'staff_audit_chain_head', 'staff_audit_anchors']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON orchestrator.${table}
        FOR EACH ROW EXECUTE FUNCTION orchestrator.staff_audit_forbid_change()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON orchestrator.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.staff_audit_forbid_change()`);
    }

    // The check: walks the chain in seq order from \`from_seq\` (1: all of it; above 1: from the record
    // after one the caller already trusts, e.g. an anchored one, whose stored hash starts the walk;
    // above the head: the head alone) and names the first record that is missing (a gap, or rows
    // missing after the last one the head counted), does not link to the one before, or whose hash
    // is not the hash of its content; \`checked\` counts the sound records walked before it.
    // Read-only; runs as the caller.
    await q.query(`
      CREATE FUNCTION orchestrator.staff_audit_verify(from_seq bigint DEFAULT 1)
      RETURNS TABLE (intact boolean, checked bigint, broken_seq bigint, problem text, head_seq bigint, head_hash text, walked_from bigint)
      LANGUAGE plpgsql STABLE SET search_path = orchestrator, pg_temp AS $$
      DECLARE
        r orchestrator.staff_audit_trail;
        head orchestrator.staff_audit_chain_head;
        expected_seq bigint;
        prev bytea := decode(repeat('00', 32), 'hex');
        n bigint := 0;
      BEGIN
        SELECT * INTO head FROM orchestrator.staff_audit_chain_head WHERE id;
        head_seq := head.last_seq;
        head_hash := encode(head.last_hash, 'hex');
        expected_seq := least(greatest(from_seq, 1), head.last_seq + 1);
        walked_from := expected_seq;
        IF expected_seq > 1 THEN
          SELECT t.hash INTO prev FROM orchestrator.staff_audit_trail t WHERE t.seq = expected_seq - 1;
          IF NOT FOUND THEN
            intact := false; checked := 0; broken_seq := expected_seq - 1; problem := 'MISSING'; RETURN NEXT; RETURN;
          END IF;
        END IF;
        FOR r IN SELECT * FROM orchestrator.staff_audit_trail WHERE seq >= expected_seq AND seq <= head.last_seq ORDER BY seq LOOP
          IF r.seq <> expected_seq THEN
            intact := false; checked := n; broken_seq := expected_seq; problem := 'MISSING'; RETURN NEXT; RETURN;
          END IF;
          IF r.prev_hash <> prev THEN
            intact := false; checked := n; broken_seq := r.seq; problem := 'BROKEN_LINK'; RETURN NEXT; RETURN;
          END IF;
          IF r.hash <> sha256(r.prev_hash || convert_to(orchestrator.staff_audit_canonical(r), 'UTF8')) THEN
            intact := false; checked := n; broken_seq := r.seq; problem := 'HASH_MISMATCH'; RETURN NEXT; RETURN;
          END IF;
          n := n + 1;
          prev := r.hash;
          expected_seq := r.seq + 1;
        END LOOP;
        IF expected_seq <= head.last_seq THEN
          intact := false; checked := n; broken_seq := expected_seq; problem := 'MISSING'; RETURN NEXT; RETURN;
        END IF;
        IF prev <> head.last_hash THEN
          intact := false; checked := n; broken_seq := head.last_seq; problem := 'HEAD_MISMATCH'; RETURN NEXT; RETURN;
        END IF;
        IF EXISTS (SELECT 1 FROM orchestrator.staff_audit_trail WHERE seq > head.last_seq) THEN
          intact := false; checked := n;
          SELECT min(seq) INTO broken_seq FROM orchestrator.staff_audit_trail WHERE seq > head.last_seq;
          problem := 'BEYOND_HEAD'; RETURN NEXT; RETURN;
        END IF;
        intact := true; checked := n; broken_seq := NULL; problem := NULL; RETURN NEXT;
      END $$`);

    // Default privileges gave the runtime role every row privilege: it appends and reads the trail,
    // and only reads the head (the chaining trigger moves it as the owner).
    await q.query(`REVOKE UPDATE, DELETE ON orchestrator.staff_audit_trail FROM ${role}`);
    await q.query(`REVOKE INSERT, UPDATE, DELETE ON orchestrator.staff_audit_chain_head FROM ${role}`);
    await q.query(`REVOKE UPDATE, DELETE ON orchestrator.staff_audit_anchors FROM ${role}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.staff_audit_verify(bigint)`);
    await q.query(`DROP TABLE IF EXISTS orchestrator.staff_audit_anchors`);
    await q.query(`DROP TRIGGER IF EXISTS trg_staff_audit_trail_chain ON orchestrator.staff_audit_trail`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.staff_audit_chain()`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.staff_audit_canonical(orchestrator.staff_audit_trail)`);
    await q.query(`DROP TABLE IF EXISTS orchestrator.staff_audit_trail`);
    await q.query(`DROP TABLE IF EXISTS orchestrator.staff_audit_chain_head`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.staff_audit_forbid_change()`);
  }
}
