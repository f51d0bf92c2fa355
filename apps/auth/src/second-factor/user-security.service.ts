import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RevokedUserSession, SecondFactorReset, SessionRevokeReason, UserLockout, UserSecurityView, UserSession } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import { SessionService } from '../sessions/session.service';
import type { LocalUser } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import type { StoredOtpPurpose } from '../otp/otp-purpose';
import { SecondFactorStore } from './second-factor.store';
import { requiresSecondFactor } from './staff-roles';

/** How far back, and how many, ended sessions the view lists. */
const REVOKED_DAYS = 30;
const REVOKED_MAX = 20;
/** How many live sessions it lists (the newest); the total is counted apart. */
const LIVE_MAX = 50;

interface SessionRow {
  id: string;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoke_reason: SessionRevokeReason | null;
  revoke_note: string | null;
  user_agent: string | null;
}

interface OtpRow {
  purpose: StoredOtpPurpose;
  attempts: number;
  max_attempts: number;
  expires_at: Date;
}

/**
 * What operators may see and do about a user's sign-in (docs/roles.md "People in the back office": the person 360 view, "end all
 * sessions", the second-factor reset), through auth's internal routes, the orchestrator's alone.
 */
@Injectable()
export class UserSecurityService {
  private readonly logger = new Logger(UserSecurityService.name);

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly db: DataSource,
    private readonly users: LocalUserStore,
    private readonly sessions: SessionService,
    private readonly enrolments: SecondFactorStore,
  ) {}

  async view(userId: string): Promise<UserSecurityView> {
    const user = await this.user(userId);
    const [live, liveCount, ended, otp, enrolment] = await Promise.all([
      queryRows<SessionRow>(
        this.db,
        `SELECT * FROM auth.sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id LIMIT $2`,
        [userId, LIVE_MAX],
      ),
      queryRows<{ n: string }>(
        this.db,
        `SELECT count(*) AS n FROM auth.sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()`,
        [userId],
      ),
      queryRows<SessionRow>(
        this.db,
        `SELECT * FROM auth.sessions WHERE user_id = $1 AND revoked_at > now() - make_interval(days => $2)
          ORDER BY revoked_at DESC LIMIT $3`,
        [userId, REVOKED_DAYS, REVOKED_MAX],
      ),
      // The live SMS code of each purpose that has had wrong tries, and a spent one until it expires.
      queryRows<OtpRow>(
        this.db,
        `SELECT purpose, attempts, max_attempts, expires_at FROM auth.otp_codes
          WHERE phone = $1 AND consumed_at IS NULL AND expires_at > now() AND attempts > 0
            AND (discarded_at IS NULL OR attempts >= max_attempts)
          ORDER BY created_at DESC`,
        [user.phone],
      ),
      this.enrolments.find(userId),
    ]);
    return {
      userId: user.id,
      roles: user.roles,
      status: user.status,
      sessions: live.map(toSession),
      sessionsTotal: Number(liveCount[0].n),
      revokedSessions: ended.map(toRevoked),
      lockouts: [...this.pinLockout(user), ...otp.map(toOtpLockout)],
      secondFactor: {
        required: requiresSecondFactor(user.roles),
        method: 'TOTP',
        enrolled: Boolean(enrolment),
        enrolledAt: enrolment ? enrolment.enrolledAt.toISOString() : null,
      },
    };
  }

  /** An operator ends every session of the user; `reason` is kept with each. */
  async revokeAll(userId: string, reason: string): Promise<number> {
    await this.user(userId);
    const ended = await this.sessions.revokeAllForUser(userId, 'REVOKED_BY_OPERATOR', undefined, this.db, reason);
    this.logger.log({ msg: 'sessions ended by an operator', userId, sessions: ended.length });
    return ended.length;
  }

  /** The enrolment is removed and the sessions end: the user enrols again at the next sign-in. */
  async resetSecondFactor(userId: string): Promise<SecondFactorReset> {
    await this.user(userId);
    const wasEnrolled = await this.enrolments.remove(userId);
    const ended = await this.sessions.revokeAllForUser(userId, 'SECOND_FACTOR_RESET');
    this.logger.log({ msg: 'second factor reset', userId, wasEnrolled, sessions: ended.length });
    return { userId, wasEnrolled, sessionsRevoked: ended.length };
  }

  private async user(userId: string): Promise<LocalUser> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException('USER_NOT_FOUND');
    return user;
  }

  private pinLockout(user: LocalUser): UserLockout[] {
    const locked = user.lockedUntil && user.lockedUntil.getTime() > Date.now() ? user.lockedUntil : null;
    if (user.failedPinAttempts === 0 && !locked && !user.hardLocked) return [];
    return [
      {
        kind: 'PIN',
        failures: user.failedPinAttempts,
        threshold: this.config.PIN_LOCK_THRESHOLD,
        lockedUntil: locked ? locked.toISOString() : null,
        hardLocked: user.hardLocked,
      },
    ];
  }
}

function toSession(row: SessionRow): UserSession {
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    userAgent: row.user_agent,
  };
}

function toRevoked(row: SessionRow): RevokedUserSession {
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at!.toISOString(),
    reason: row.revoke_reason!,
    note: row.revoke_note,
    userAgent: row.user_agent,
  };
}

function toOtpLockout(row: OtpRow): UserLockout {
  const spent = row.attempts >= row.max_attempts;
  return {
    kind: `OTP_${row.purpose}`,
    failures: row.attempts,
    threshold: row.max_attempts,
    lockedUntil: spent ? row.expires_at.toISOString() : null,
    hardLocked: false,
  };
}
