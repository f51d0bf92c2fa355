import type { MigrationInterface, QueryRunner } from 'typeorm';

const SAFE_MONEY = (column: string, min = 0) => `CHECK (${column} >= ${min} AND ${column} <= 9007199254740991)`;

/**
 * The orchestrator's side of the public money flow:
 *
 * - `payment_intents`: who started each public intent and for whom, how it was priced and judged,
 *   the exact bodies sent to the ledger (a retried create or confirm resends them byte for byte, so
 *   the ledger's idempotency check replays instead of refusing), and, once the ledger committed,
 *   the transaction it produced. The ledger stays the source of truth for status and money; this
 *   row is what the receipt, the history and the role scoping read.
 * - `withdrawal_qrs`: single-use, short-lived codes a customer shows an agent to consent to a
 *   cash-out without an OTP. Only a hash of the code is stored.
 *
 * SMS to payer and payee go through the identities' `sms_outbox`, in the transaction that marks the
 * intent SUCCEEDED here.
 */
export class Payments1764000200000 implements MigrationInterface {
  name = 'Payments1764000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orchestrator.payment_intents (
        id                     uuid PRIMARY KEY,
        ledger_intent_id       uuid UNIQUE,
        idempotency_key        uuid NOT NULL UNIQUE,
        request_hash           text NOT NULL CHECK (request_hash ~ '^[0-9a-f]{64}$'),
        initiator_user_id      uuid NOT NULL,
        initiator_role         text NOT NULL,
        type                   text NOT NULL CHECK (type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT')),
        operation_type         text NOT NULL CHECK (operation_type IN ('TRANSFER', 'CASH_IN', 'CASH_OUT', 'MERCHANT_PAYMENT')),
        amount                 bigint NOT NULL ${SAFE_MONEY('amount', 1)},
        currency               text NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        quote_id               uuid NOT NULL,
        quoted_fee             bigint NOT NULL ${SAFE_MONEY('quoted_fee')},
        quoted_commission      bigint NOT NULL ${SAFE_MONEY('quoted_commission')},
        grid_version           integer NOT NULL,
        limits_version         integer NOT NULL,
        risk_create_decision_id uuid NOT NULL,
        risk_confirm_decision_id uuid,
        payer                  jsonb NOT NULL CHECK (jsonb_typeof(payer) = 'object'),
        payee                  jsonb NOT NULL CHECK (jsonb_typeof(payee) = 'object'),
        agent                  jsonb CHECK (agent IS NULL OR jsonb_typeof(agent) = 'object'),
        payer_user_id          uuid NOT NULL,
        payee_user_id          uuid NOT NULL,
        agent_user_id          uuid,
        master_agent_user_id   uuid,
        source_account_id      uuid NOT NULL,
        destination_account_id uuid NOT NULL CHECK (destination_account_id <> source_account_id),
        requires_otp           boolean NOT NULL DEFAULT false,
        qr_token               text CHECK (qr_token IS NULL OR char_length(qr_token) BETWEEN 1 AND 200),
        withdrawal_qr_id       uuid,
        description            text CHECK (description IS NULL OR char_length(description) <= 140),
        status                 text NOT NULL CHECK (status IN ('PENDING', 'CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED',
                                 'SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED')),
        pin_attempts           integer NOT NULL DEFAULT 0 CHECK (pin_attempts >= 0),
        otp_attempts           integer NOT NULL DEFAULT 0 CHECK (otp_attempts >= 0),
        ledger_request         jsonb NOT NULL,
        create_response        jsonb,
        confirm_request        jsonb,
        charged_fee            bigint ${SAFE_MONEY('charged_fee')},
        charged_commission     bigint ${SAFE_MONEY('charged_commission')},
        charge_rule            text,
        transaction_id         uuid UNIQUE,
        reference_id           text UNIQUE,
        confirm_response       jsonb,
        failure_reason         text,
        correlation_id         uuid,
        expires_at             timestamptz,
        completed_at           timestamptz,
        created_at             timestamptz NOT NULL DEFAULT now(),
        updated_at             timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'PENDING') = (ledger_intent_id IS NULL)),
        CHECK (status <> 'SUCCEEDED' OR (transaction_id IS NOT NULL AND reference_id IS NOT NULL AND completed_at IS NOT NULL
               AND charged_fee IS NOT NULL AND confirm_response IS NOT NULL))
      )`);
    // History, newest first, per role scope (keyset pagination on completed_at, id).
    for (const column of ['payer_user_id', 'payee_user_id', 'agent_user_id', 'master_agent_user_id']) {
      await q.query(
        `CREATE INDEX payment_intents_${column.replace('_user_id', '')}_history_idx ON orchestrator.payment_intents
           (${column}, completed_at DESC, id DESC) WHERE status = 'SUCCEEDED' AND ${column} IS NOT NULL`,
      );
    }
    await q.query(
      `CREATE INDEX payment_intents_history_idx ON orchestrator.payment_intents (completed_at DESC, id DESC) WHERE status = 'SUCCEEDED'`,
    );
    // Money, parties and prices of an intent never change once written; only its progress does.
    await q.query(`
      CREATE FUNCTION orchestrator.payment_intents_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          IF OLD.status <> 'PENDING' THEN
            RAISE EXCEPTION 'orchestrator.payment_intents: only a PENDING row may be deleted (id %)', OLD.id USING ERRCODE = 'restrict_violation';
          END IF;
          RETURN OLD;
        END IF;
        IF NEW.idempotency_key <> OLD.idempotency_key OR NEW.request_hash <> OLD.request_hash OR NEW.type <> OLD.type
           OR NEW.amount <> OLD.amount OR NEW.currency <> OLD.currency OR NEW.source_account_id <> OLD.source_account_id
           OR NEW.destination_account_id <> OLD.destination_account_id OR NEW.quote_id <> OLD.quote_id
           OR NEW.initiator_user_id <> OLD.initiator_user_id OR NEW.ledger_request <> OLD.ledger_request
           OR (OLD.ledger_intent_id IS NOT NULL AND NEW.ledger_intent_id IS DISTINCT FROM OLD.ledger_intent_id)
           OR (OLD.confirm_request IS NOT NULL AND NEW.confirm_request IS DISTINCT FROM OLD.confirm_request) THEN
          RAISE EXCEPTION 'orchestrator.payment_intents: the terms of intent % cannot change', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.status IN ('SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED') AND NEW.status <> OLD.status THEN
          RAISE EXCEPTION 'orchestrator.payment_intents: intent % is final (%)', OLD.id, OLD.status USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.status = 'SUCCEEDED' AND (NEW.transaction_id IS DISTINCT FROM OLD.transaction_id OR NEW.reference_id IS DISTINCT FROM OLD.reference_id
           OR NEW.charged_fee IS DISTINCT FROM OLD.charged_fee OR NEW.confirm_response IS DISTINCT FROM OLD.confirm_response) THEN
          RAISE EXCEPTION 'orchestrator.payment_intents: the outcome of intent % cannot change', OLD.id USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_payment_intents_guard BEFORE UPDATE OR DELETE ON orchestrator.payment_intents
        FOR EACH ROW EXECUTE FUNCTION orchestrator.payment_intents_guard()`);

    await q.query(`
      CREATE TABLE orchestrator.withdrawal_qrs (
        id               uuid PRIMARY KEY,
        token_hash       bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
        customer_user_id uuid NOT NULL,
        currency         text NOT NULL CHECK (currency IN ('XAF', 'XOF')),
        amount           bigint ${SAFE_MONEY('amount', 1)},
        created_at       timestamptz NOT NULL DEFAULT now(),
        expires_at       timestamptz NOT NULL,
        consumed_at      timestamptz,
        consumed_by      uuid REFERENCES orchestrator.payment_intents (id) ON DELETE SET NULL,
        CHECK (expires_at > created_at)
      )`);
    await q.query(`CREATE INDEX withdrawal_qrs_customer_idx ON orchestrator.withdrawal_qrs (customer_user_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS orchestrator.withdrawal_qrs, orchestrator.payment_intents CASCADE`);
    await q.query(`DROP FUNCTION IF EXISTS orchestrator.payment_intents_guard()`);
  }
}
