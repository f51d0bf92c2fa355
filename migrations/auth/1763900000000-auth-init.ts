import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Authentication (docs/mobile-api.md "Accounts and tokens"): the identity-provider store
 * (credentials) and the local user store (roles, status, lockout) kept apart
 * (docs/registration.md "Steps"), sessions with rotating refresh tokens, OTP codes.
 */
export class AuthInit1763900000000 implements MigrationInterface {
  name = 'AuthInit1763900000000';

  async up(q: QueryRunner): Promise<void> {
    // Identity provider: what a Keycloak-style system would hold. No foreign key from local users,
    // because in production it may live outside this database.
    await q.query(`
      CREATE TABLE auth.idp_users (
        id             uuid PRIMARY KEY,
        phone          text NOT NULL UNIQUE CHECK (phone ~ '^\\+[1-9][0-9]{7,14}$'),
        pin_hash       text NOT NULL,
        pin_changed_at timestamptz NOT NULL DEFAULT now(),
        created_at     timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE auth.users (
        id                  uuid PRIMARY KEY,
        idp_user_id         uuid NOT NULL UNIQUE,
        phone               text NOT NULL UNIQUE CHECK (phone ~ '^\\+[1-9][0-9]{7,14}$'),
        roles               text[] NOT NULL CHECK (cardinality(roles) > 0 AND roles <@ ARRAY['CUSTOMER','MERCHANT','AGENT','ADMIN']::text[]),
        status              text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
        profile_id          uuid,
        failed_pin_attempts integer NOT NULL DEFAULT 0 CHECK (failed_pin_attempts >= 0),
        locked_until        timestamptz,
        hard_locked         boolean NOT NULL DEFAULT false,
        created_at          timestamptz NOT NULL DEFAULT now(),
        updated_at          timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX users_admin_idx ON auth.users ((1)) WHERE 'ADMIN' = ANY (roles)`);

    // A session is one refresh-token family; revoking it kills its access tokens at the next check.
    await q.query(`
      CREATE TABLE auth.sessions (
        id            uuid PRIMARY KEY,
        user_id       uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
        created_at    timestamptz NOT NULL DEFAULT now(),
        expires_at    timestamptz NOT NULL,
        revoked_at    timestamptz,
        revoke_reason text CHECK (revoke_reason IN ('LOGOUT', 'REFRESH_REUSE', 'PIN_CHANGED', 'PIN_RESET', 'USER_DELETED'))
      )`);
    await q.query(`CREATE INDEX sessions_user_active_idx ON auth.sessions (user_id) WHERE revoked_at IS NULL`);
    await q.query(`
      CREATE TABLE auth.refresh_tokens (
        token_hash bytea PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at    timestamptz
      )`);
    await q.query(`CREATE INDEX refresh_tokens_session_idx ON auth.refresh_tokens (session_id)`);

    // OTP codes: only an HMAC of the code is stored. At most one live code per phone and purpose.
    await q.query(`
      CREATE TABLE auth.otp_codes (
        id           uuid PRIMARY KEY,
        phone        text NOT NULL,
        purpose      text NOT NULL CHECK (purpose IN ('LOGIN', 'PIN_RESET', 'INTENT')),
        code_hmac    bytea NOT NULL,
        attempts     integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        max_attempts integer NOT NULL CHECK (max_attempts > 0),
        created_at   timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz NOT NULL,
        consumed_at  timestamptz,
        discarded_at timestamptz,
        proof_used_at timestamptz,
        CHECK (attempts <= max_attempts),
        CHECK (proof_used_at IS NULL OR consumed_at IS NOT NULL)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX otp_codes_live_idx ON auth.otp_codes (phone, purpose) WHERE consumed_at IS NULL AND discarded_at IS NULL`,
    );
    await q.query(`CREATE INDEX otp_codes_recent_idx ON auth.otp_codes (phone, purpose, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS auth.otp_codes, auth.refresh_tokens, auth.sessions, auth.users, auth.idp_users`);
  }
}
