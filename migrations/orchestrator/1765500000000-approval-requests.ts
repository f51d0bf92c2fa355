import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

const MAX = '9007199254740991';

/**
 * The maker-checker engine's requests (docs/approvals.md "The table",
 * `apps/orchestrator/src/approvals`). One row per sensitive action submitted by a maker: the exact
 * payload, the reason, the expiry, then the checker's decision and what carrying it out produced.
 *
 * The database keeps the engine's rules as a last line of defence: a four-eyes request is never
 * decided by its maker; two identical requests are never live at once (the partial unique index);
 * a status only moves forward (PENDING → EXECUTING | REJECTED | EXPIRED, EXECUTING → EXECUTED |
 * FAILED) and a final one never changes again; what the maker submitted never changes; rows are
 * never deleted.
 */
export class ApprovalRequests1765500000000 implements MigrationInterface {
  name = 'ApprovalRequests1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orchestrator.approval_requests (
        id uuid PRIMARY KEY,
        action text NOT NULL CHECK (action ~ '^[A-Z][A-Z0-9_]{1,63}$'),
        status text NOT NULL CHECK (status IN ('PENDING', 'EXECUTING', 'EXECUTED', 'REJECTED', 'EXPIRED', 'FAILED')),
        four_eyes boolean NOT NULL,
        target_type text NOT NULL CHECK (length(target_type) BETWEEN 1 AND 40),
        target_id text NOT NULL CHECK (length(target_id) BETWEEN 1 AND 200),
        summary text NOT NULL CHECK (length(summary) BETWEEN 1 AND 500),
        amount bigint CHECK (amount > 0 AND amount <= ${MAX}),
        currency char(3),
        payload jsonb NOT NULL,
        dedup_key text NOT NULL CHECK (length(dedup_key) BETWEEN 1 AND 200),
        reason text NOT NULL CHECK (length(reason) BETWEEN 3 AND 500),
        maker_id text NOT NULL,
        maker_role text NOT NULL,
        checker_id text,
        checker_role text,
        decision_reason text CHECK (length(decision_reason) <= 500),
        prepared jsonb,
        result jsonb,
        failure_code text,
        failure_message text,
        -- to the millisecond: list cursors carry it as an ISO instant
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        -- when the execution was last started (an approval, or the sweep taking over after a crash)
        claimed_at timestamptz,
        executed_at timestamptz,
        -- when what prepare reserved was given back (a rejected, expired or failed request); the sweep retries until set
        released_at timestamptz,
        CONSTRAINT "CHK_approval_requests_four_eyes" CHECK (NOT four_eyes OR checker_id IS NULL OR checker_id <> maker_id),
        CONSTRAINT "CHK_approval_requests_amount" CHECK ((amount IS NULL) = (currency IS NULL)),
        CONSTRAINT "CHK_approval_requests_decided" CHECK ((status = 'PENDING') = (decided_at IS NULL)),
        CONSTRAINT "CHK_approval_requests_checker" CHECK (
          (status IN ('EXECUTING', 'EXECUTED', 'FAILED', 'REJECTED')) = (checker_id IS NOT NULL AND checker_role IS NOT NULL)),
        CONSTRAINT "CHK_approval_requests_claimed" CHECK ((status IN ('EXECUTING', 'EXECUTED', 'FAILED')) = (claimed_at IS NOT NULL)),
        CONSTRAINT "CHK_approval_requests_executed" CHECK ((status IN ('EXECUTED', 'FAILED')) = (executed_at IS NOT NULL)),
        CONSTRAINT "CHK_approval_requests_failure" CHECK ((status = 'FAILED') = (failure_code IS NOT NULL AND failure_message IS NOT NULL)),
        CONSTRAINT "CHK_approval_requests_released" CHECK (released_at IS NULL OR status IN ('REJECTED', 'EXPIRED', 'FAILED'))
      )`);
    // A second identical request is refused while the first is live; a decided one no longer counts.
    await q.query(`
      CREATE UNIQUE INDEX "UQ_approval_requests_live" ON orchestrator.approval_requests (action, dedup_key)
        WHERE status IN ('PENDING', 'EXECUTING')`);
    await q.query(`CREATE INDEX "IDX_approval_requests_created" ON orchestrator.approval_requests (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX "IDX_approval_requests_expiry" ON orchestrator.approval_requests (expires_at) WHERE status = 'PENDING'`);
    await q.query(
      `CREATE INDEX "IDX_approval_requests_executing" ON orchestrator.approval_requests (claimed_at) WHERE status = 'EXECUTING'`,
    );
    await q.query(
      `CREATE INDEX "IDX_approval_requests_unreleased" ON orchestrator.approval_requests (decided_at)
         WHERE released_at IS NULL AND status IN ('REJECTED', 'EXPIRED', 'FAILED')`,
    );
    await q.query(`CREATE INDEX "IDX_approval_requests_maker" ON orchestrator.approval_requests (maker_id, created_at DESC)`);
    await q.query(
      `CREATE INDEX "IDX_approval_requests_target" ON orchestrator.approval_requests (target_type, target_id, created_at DESC)`,
    );

    await q.query(`
      CREATE FUNCTION orchestrator.approval_requests_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        submitted text[] := ARRAY['id', 'action', 'four_eyes', 'target_type', 'target_id', 'summary', 'amount', 'currency',
                                  'payload', 'dedup_key', 'reason', 'maker_id', 'maker_role', 'created_at', 'expires_at'];
      BEGIN
        IF TG_LEVEL = 'STATEMENT' THEN
          RAISE EXCEPTION 'orchestrator.approval_requests: TRUNCATE operation forbidden' USING ERRCODE = 'restrict_violation';
        END IF;
        IF TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'orchestrator.approval_requests: DELETE operation forbidden on %', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        -- a final row changes once more, only to record that its reservation was released
        IF OLD.status IN ('REJECTED', 'EXPIRED', 'FAILED') AND OLD.released_at IS NULL AND NEW.released_at IS NOT NULL
           AND (to_jsonb(NEW) - 'released_at') = (to_jsonb(OLD) - 'released_at') THEN
          RETURN NEW;
        END IF;
        IF OLD.status IN ('EXECUTED', 'REJECTED', 'EXPIRED', 'FAILED') THEN
          RAISE EXCEPTION 'orchestrator.approval_requests % is % and final: UPDATE operation forbidden', OLD.id, OLD.status
            USING ERRCODE = 'restrict_violation';
        END IF;
        IF NEW.released_at IS DISTINCT FROM OLD.released_at AND NEW.status NOT IN ('REJECTED', 'EXPIRED', 'FAILED') THEN
          RAISE EXCEPTION 'orchestrator.approval_requests %: only a final request is released', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        -- EXECUTING -> PENDING: the only step back, when the place the action runs refused the checker's
        -- role before doing anything (the request waits for a checker it accepts); the claim is undone whole
        IF OLD.status = 'EXECUTING' AND NEW.status = 'PENDING' AND OLD.four_eyes THEN
          IF NEW.checker_id IS NOT NULL OR NEW.checker_role IS NOT NULL OR NEW.decided_at IS NOT NULL OR NEW.claimed_at IS NOT NULL
             OR NEW.decision_reason IS NOT NULL OR NEW.prepared IS DISTINCT FROM OLD.prepared THEN
            RAISE EXCEPTION 'orchestrator.approval_requests %: a claim is undone whole', OLD.id USING ERRCODE = 'restrict_violation';
          END IF;
        ELSIF NOT (NEW.status = OLD.status
                OR (OLD.status = 'PENDING' AND NEW.status IN ('EXECUTING', 'REJECTED', 'EXPIRED'))
                OR (OLD.status = 'EXECUTING' AND NEW.status IN ('EXECUTED', 'FAILED'))) THEN
          RAISE EXCEPTION 'orchestrator.approval_requests %: % cannot become %', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'restrict_violation';
        END IF;
        IF (SELECT jsonb_object_agg(k, to_jsonb(NEW) -> k) FROM unnest(submitted) k)
           <> (SELECT jsonb_object_agg(k, to_jsonb(OLD) -> k) FROM unnest(submitted) k) THEN
          RAISE EXCEPTION 'orchestrator.approval_requests %: what the maker submitted never changes', OLD.id
            USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.status <> 'PENDING' AND NOT (OLD.status = 'EXECUTING' AND NEW.status = 'PENDING') AND (NEW.prepared IS DISTINCT FROM OLD.prepared OR NEW.checker_id IS DISTINCT FROM OLD.checker_id
            OR NEW.checker_role IS DISTINCT FROM OLD.checker_role OR NEW.decided_at IS DISTINCT FROM OLD.decided_at
            OR NEW.decision_reason IS DISTINCT FROM OLD.decision_reason) THEN
          RAISE EXCEPTION 'orchestrator.approval_requests %: the decision never changes', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_approval_requests_guard BEFORE UPDATE OR DELETE ON orchestrator.approval_requests
        FOR EACH ROW EXECUTE FUNCTION orchestrator.approval_requests_guard()`);
    await q.query(`
      CREATE TRIGGER trg_approval_requests_no_truncate BEFORE TRUNCATE ON orchestrator.approval_requests
        FOR EACH STATEMENT EXECUTE FUNCTION orchestrator.approval_requests_guard()`);
    // Write-ahead marks of submissions: written and committed before a handler's prepare reaches another
    // service with the request's id as idempotency key, removed in the transaction that stores the
    // request. A mark left behind (a crash, a lost answer, a failed insert) names a reservation no
    // request owns: the sweep has the handler give it back, then removes the mark.
    await q.query(`
      CREATE TABLE orchestrator.approval_preparations (
        request_id uuid PRIMARY KEY,
        action text NOT NULL CHECK (action ~ '^[A-Z][A-Z0-9_]{1,63}$'),
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_approval_preparations_created" ON orchestrator.approval_preparations (created_at)`);
    // Rows are decided, never removed: the runtime role keeps SELECT, INSERT and UPDATE only.
    await q.query(`REVOKE DELETE, TRUNCATE ON orchestrator.approval_requests FROM ${SERVICES.orchestrator.role}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS orchestrator.approval_preparations`);
    await q.query(`DROP TABLE IF EXISTS orchestrator.approval_requests`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.approval_requests_guard()`);
  }
}
