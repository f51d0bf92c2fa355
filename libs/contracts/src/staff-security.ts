import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES, type AppRole } from './identity';

/*
 * What auth tells about a user's sign-in security (docs/roles.md "People in the back office"): the live sessions, the recently
 * ended ones and why, the lockouts in force, and the second factor. Auth answers it at
 * `GET /auth/internal/users/:id/security` (orchestrator only); the orchestrator's person 360 view
 * relays it. The classes document the shapes (auth's own document and the public one reuse them);
 * each `implements` the interface, so a field added to one without the other fails to compile.
 */

/**
 * Why a session ended (auth.sessions.revoke_reason). Append, never rename.
 * LOGOUT_ALL: the user signed out everywhere; REVOKED_BY_OPERATOR: an operator ended the user's
 * sessions (the operator's reason is kept as `note`); SECOND_FACTOR_RESET: the second factor was reset.
 */
export const SESSION_REVOKE_REASONS = [
  'LOGOUT',
  'REFRESH_REUSE',
  'PIN_CHANGED',
  'PIN_RESET',
  'USER_DELETED',
  'ACCOUNT_DISABLED',
  'ROLE_CHANGED',
  'LOGOUT_ALL',
  'REVOKED_BY_OPERATOR',
  'SECOND_FACTOR_RESET',
] as const;
export type SessionRevokeReason = (typeof SESSION_REVOKE_REASONS)[number];

/** Auth's internal routes about a user's sign-in security (the orchestrator's service key only). */
export const AUTH_USER_SECURITY_ROUTES = {
  /** GET → UserSecurityView */
  security: (userId: string) => `/auth/internal/users/${encodeURIComponent(userId)}/security`,
  /** POST { reason } → SessionsRevoked */
  revokeAllSessions: (userId: string) => `/auth/internal/users/${encodeURIComponent(userId)}/sessions/revoke-all`,
  /** POST → SecondFactorReset */
  resetSecondFactor: (userId: string) => `/auth/internal/users/${encodeURIComponent(userId)}/second-factor/reset`,
} as const;

/** The second-step answers of a staff login (POST /auth/login), instead of tokens. */
export const SECOND_FACTOR_CHALLENGES = ['TOTP_REQUIRED', 'TOTP_ENROLMENT_REQUIRED'] as const;
export type SecondFactorChallengeKind = (typeof SECOND_FACTOR_CHALLENGES)[number];

/** A live session: one refresh-token family. */
export interface UserSession {
  id: string;
  createdAt: string;
  /** the last sign-in or refresh of the session (an access token's use is not recorded) */
  lastUsedAt: string;
  expiresAt: string;
  /** the User-Agent header of the sign-in, when the client sent one */
  userAgent: string | null;
}

/** A session that ended (revoked) recently. */
export interface RevokedUserSession {
  id: string;
  createdAt: string;
  revokedAt: string;
  reason: SessionRevokeReason;
  /** the operator's words, for REVOKED_BY_OPERATOR */
  note: string | null;
  userAgent: string | null;
}

/**
 * A lockout counter auth keeps for the user. PIN: the account's failed attempts (login PINs,
 * check-pin, change-pin and second-factor codes share it); OTP_<purpose>: the live SMS code's wrong tries.
 */
export interface UserLockout {
  kind: 'PIN' | 'OTP_LOGIN' | 'OTP_PIN_RESET' | 'OTP_INTENT' | 'OTP_STAFF_ENROLMENT';
  failures: number;
  /** the failures that lock (PIN: the temporary lock; OTP: the code is spent) */
  threshold: number;
  /** locked until then (PIN: the temporary lock; OTP: the code's expiry when spent); null when not locked */
  lockedUntil: string | null;
  /** PIN only: locked until a PIN reset */
  hardLocked: boolean;
}

export interface UserSecondFactor {
  /** staff roles must sign in with a second factor */
  required: boolean;
  method: 'TOTP';
  enrolled: boolean;
  enrolledAt: string | null;
}

export interface UserSecurityView {
  userId: string;
  roles: AppRole[];
  status: 'ACTIVE' | 'DISABLED';
  /** live sessions, newest first, at most 50 */
  sessions: UserSession[];
  /** how many live sessions the user has, those beyond the 50 listed included */
  sessionsTotal: number;
  /** sessions ended in the last 30 days, newest first, at most 20 */
  revokedSessions: RevokedUserSession[];
  /** only counters that hold a failure or a lock */
  lockouts: UserLockout[];
  secondFactor: UserSecondFactor;
}

/** The same view; the name the staff screens use. */
export type StaffSecurityView = UserSecurityView;

/** POST /auth/internal/users/:id/sessions/revoke-all and POST /auth/logout-all. */
export interface SessionsRevoked {
  revoked: number;
}

/** POST /auth/internal/users/:id/second-factor/reset. */
export interface SecondFactorReset {
  userId: string;
  /** false when the user had no enrolment (the call changes nothing then, but still ends the sessions) */
  wasEnrolled: boolean;
  sessionsRevoked: number;
}

/** A staff login's second step. */
export interface SecondFactorChallenge {
  secondFactor: SecondFactorChallengeKind;
  /** single use, bound to the user; send it with the code to POST /auth/login/second-factor */
  challengeToken: string;
  expiresAt: string;
  /**
   * TOTP_ENROLMENT_REQUIRED only: the new secret (base32) for an authenticator app. A 6-digit code
   * was also sent by SMS to the staff phone: the second step needs both codes.
   */
  secret?: string;
  /** TOTP_ENROLMENT_REQUIRED only: the same as an otpauth:// URI (for a QR code) */
  otpauthUri?: string;
}

const DATE = { format: 'date-time', example: '2026-09-21T14:28:20.000Z' } as const;
const UUID = { format: 'uuid', example: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' } as const;

export class UserSessionDoc implements UserSession {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(DATE)
  createdAt: string;

  @ApiProperty({ ...DATE, description: 'the last sign-in or refresh of the session (the use of an access token is not recorded)' })
  lastUsedAt: string;

  @ApiProperty(DATE)
  expiresAt: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Mozilla/5.0', description: 'User-Agent of the sign-in, when sent' })
  userAgent: string | null;
}

export class RevokedUserSessionDoc implements RevokedUserSession {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(DATE)
  createdAt: string;

  @ApiProperty(DATE)
  revokedAt: string;

  @ApiProperty({ enum: SESSION_REVOKE_REASONS, example: 'REVOKED_BY_OPERATOR' })
  reason: SessionRevokeReason;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'phone reported stolen',
    description: "the operator's reason (REVOKED_BY_OPERATOR)",
  })
  note: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Mozilla/5.0' })
  userAgent: string | null;
}

export class UserLockoutDoc implements UserLockout {
  @ApiProperty({
    enum: ['PIN', 'OTP_LOGIN', 'OTP_PIN_RESET', 'OTP_INTENT', 'OTP_STAFF_ENROLMENT'],
    description: "PIN: the account's failed attempts (PINs and second-factor codes); OTP_*: the live SMS code's wrong tries",
  })
  kind: UserLockout['kind'];

  @ApiProperty({ type: 'integer', minimum: 0, example: 2 })
  failures: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 5, description: 'the failures that lock' })
  threshold: number;

  @ApiProperty({ ...DATE, type: 'string', nullable: true, description: 'locked until then; null when not locked' })
  lockedUntil: string | null;

  @ApiProperty({ description: 'PIN only: locked until a PIN reset', example: false })
  hardLocked: boolean;
}

export class UserSecondFactorDoc implements UserSecondFactor {
  @ApiProperty({ description: 'staff roles must sign in with a second factor', example: true })
  required: boolean;

  @ApiProperty({ enum: ['TOTP'] })
  method: 'TOTP';

  @ApiProperty({ example: true })
  enrolled: boolean;

  @ApiProperty({ ...DATE, type: 'string', nullable: true })
  enrolledAt: string | null;
}

export class UserSecurityDoc implements UserSecurityView {
  @ApiProperty(UUID)
  userId: string;

  @ApiProperty({ enum: APP_ROLES, isArray: true, example: ['SUPPORT'] })
  roles: AppRole[];

  @ApiProperty({ enum: ['ACTIVE', 'DISABLED'] })
  status: 'ACTIVE' | 'DISABLED';

  @ApiProperty({ type: [UserSessionDoc], description: 'live sessions, newest first, at most 50' })
  sessions: UserSessionDoc[];

  @ApiProperty({ type: 'integer', minimum: 0, example: 2, description: 'live sessions in all, those beyond the 50 listed included' })
  sessionsTotal: number;

  @ApiProperty({ type: [RevokedUserSessionDoc], description: 'sessions ended in the last 30 days, newest first, at most 20' })
  revokedSessions: RevokedUserSessionDoc[];

  @ApiProperty({ type: [UserLockoutDoc], description: 'the counters holding a failure or a lock' })
  lockouts: UserLockoutDoc[];

  @ApiProperty({ type: UserSecondFactorDoc })
  secondFactor: UserSecondFactorDoc;
}

export class SessionsRevokedDoc implements SessionsRevoked {
  @ApiProperty({ type: 'integer', minimum: 0, example: 2, description: 'sessions ended by this call' })
  revoked: number;
}

export class SecondFactorResetDoc implements SecondFactorReset {
  @ApiProperty(UUID)
  userId: string;

  @ApiProperty({ description: 'false when the user had no enrolment', example: true })
  wasEnrolled: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
  sessionsRevoked: number;
}

export class SecondFactorChallengeDoc implements SecondFactorChallenge {
  @ApiProperty({
    enum: SECOND_FACTOR_CHALLENGES,
    description:
      'TOTP_REQUIRED: send the current code; TOTP_ENROLMENT_REQUIRED: add `secret` to an authenticator app, then send its first code with the code sent by SMS to the staff phone (smsCode)',
  })
  secondFactor: SecondFactorChallengeKind;

  @ApiProperty({
    example: 'sfc1.Qm9vdHN0cmFwIGNoYWxsZW5nZSB0b2tlbiBleGFtcGxl',
    description: 'single use; POST it with the code to /auth/login/second-factor',
  })
  challengeToken: string;

  @ApiProperty({ ...DATE, description: 'the challenge is refused after this' })
  expiresAt: string;

  @ApiProperty({ required: false, example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'enrolment only: the TOTP secret, base32' })
  secret?: string;

  @ApiProperty({
    required: false,
    example:
      'otpauth://totp/Mobile%20Money:%2B237699000001?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Mobile+Money&algorithm=SHA1&digits=6&period=30',
    description: 'enrolment only: the secret as an otpauth URI (for a QR code)',
  })
  otpauthUri?: string;
}
