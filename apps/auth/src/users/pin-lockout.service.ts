import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import { RELAXED_COMMIT, pinLockEnd, pinNotLocked } from '../common/sql';
import { AuthSecrets } from '../crypto/auth-secrets';
import type { LocalUser } from './local-user';
import { LocalUserStore } from './local-user.store';

/** What the lock decision needs: an account, or the counter of a phone with no account. */
export interface LockState {
  lockedUntil: Date | null;
  hardLocked: boolean;
}

/**
 * How long the counter of a phone with no account is kept after its last counted failure (after
 * its lock ends, when it is locked). An account keeps its count until a success or a PIN reset;
 * the counter of an unknown phone cannot be kept for ever (anyone can make one for any phone), so
 * it is forgotten after this time. A month is far longer than the whole lock schedule (about 8 h
 * from the 5th failure to the hard lock at the defaults), and longer than an account owner
 * usually takes to sign in or reset a forgotten PIN, which also clears an account's count.
 */
export const UNKNOWN_PHONE_MEMORY_SEC = 30 * 24 * 3600;

interface UnknownRow {
  failed_pin_attempts: number;
  locked_until: Date | null;
  hard_locked: boolean;
  reserved: boolean;
}

/**
 * Failed PIN attempts per account (login, check-pin and change-pin share the count): a temporary
 * lock at PIN_LOCK_THRESHOLD failures (PIN_LOCK_BASE_SEC, doubling with each further failure), a
 * hard lock at PIN_HARD_LOCK_THRESHOLD that only a PIN reset lifts. A success clears the count.
 * Attempts are counted before the PIN is checked, so parallel requests cannot try more PINs than
 * the thresholds allow.
 *
 * A login on a phone with no account goes through the same schedule, with a counter of its own
 * (`auth.unknown_phone_lockouts`, named by a keyed digest of the phone): the same answers, the same
 * Retry-After, the same hard lock, so the lock does not tell which phones are registered. That
 * counter is never read for an account, so it cannot lock anybody out: once the phone registers,
 * its account's own counter applies.
 */
@Injectable()
export class PinLockout {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly users: LocalUserStore,
    private readonly db: DataSource,
    private readonly secrets: AuthSecrets,
  ) {}

  /** Throws ACCOUNT_LOCKED / ACCOUNT_HARD_LOCKED before any PIN is even looked at. */
  assertNotLocked(state: LockState): void {
    if (state.hardLocked) throw new AppException('ACCOUNT_HARD_LOCKED');
    if (state.lockedUntil && state.lockedUntil.getTime() > Date.now()) throw this.lockedError(state.lockedUntil);
  }

  /**
   * Takes one of the account's attempts before the PIN is checked (see LocalUserStore.reservePinAttempt);
   * throws the lock when none is left.
   */
  async reserve(user: LocalUser): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.users.reservePinAttempt(user.id, this.policy())) return;
      const fresh = await this.users.findById(user.id);
      if (!fresh) throw new AppException('INVALID_CREDENTIALS');
      // Locked by a concurrent attempt: say so. (Not locked any more: the lock just ended, try again.)
      this.assertNotLocked(fresh);
    }
    throw new AppException('ACCOUNT_LOCKED');
  }

  /** The reserved attempt failed: throws the lock when the account is now locked. */
  async recordFailure(user: LocalUser): Promise<void> {
    this.assertNotLocked(await this.users.confirmPinFailure(user.id, this.config.PIN_HARD_LOCK_THRESHOLD));
  }

  async recordSuccess(user: LocalUser): Promise<void> {
    await this.users.clearPinFailures(user.id);
  }

  /** The reserved attempt succeeded but does not clear the count (a staff PIN before its second factor). */
  async releaseAttempt(user: LocalUser): Promise<void> {
    await this.users.releasePinAttempt(user.id, this.config.PIN_LOCK_THRESHOLD);
  }

  /**
   * For a phone with no account: what `assertNotLocked` + `reserve` do for an account, in one
   * statement, so a phone that is not locked costs the statements of an account. A locked phone
   * costs that one statement more than a locked account, whose lock comes with the account row
   * (well under a millisecond; neither pays a hash). Throws the lock; otherwise returns the tag to
   * pass to `recordUnknownFailure` once the (dummy) PIN check has been paid for.
   */
  async reserveUnknown(phone: string): Promise<string> {
    const tag = this.secrets.phoneTag('unknown-phone-lockout', phone);
    const { lockAt, baseSec } = this.policy();
    // A forgotten row (forget_at passed) counts as no row: its lock, if any, ended long ago. The
    // periodic clean-up (AuthCleanup) deletes such rows; the login path never does.
    const stale = `l.forget_at <= now()`;
    const count = `(CASE WHEN ${stale} THEN 0 ELSE l.failed_pin_attempts END + 1)`;
    const lockEnd = (n: string) => pinLockEnd(n, '$2', '$3');
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows = await queryRows<UnknownRow>(
        this.db,
        `WITH counted AS (
           INSERT INTO auth.unknown_phone_lockouts AS l (phone_tag, failed_pin_attempts, locked_until, hard_locked, forget_at)
           SELECT $1, 1, ${lockEnd('1')}, false, GREATEST(now(), ${lockEnd('1')}) + make_interval(secs => $4::double precision)
             FROM ${RELAXED_COMMIT}
           ON CONFLICT (phone_tag) DO UPDATE SET
             failed_pin_attempts = ${count},
             locked_until = ${lockEnd(count)},
             hard_locked = false,
             forget_at = GREATEST(now(), ${lockEnd(count)}) + make_interval(secs => $4::double precision)
           WHERE ${stale} OR (${pinNotLocked('l.')})
           RETURNING l.failed_pin_attempts, l.locked_until, l.hard_locked, true AS reserved
         )
         SELECT * FROM counted
         UNION ALL
         SELECT failed_pin_attempts, locked_until, hard_locked, false AS reserved FROM auth.unknown_phone_lockouts
          WHERE phone_tag = $1 AND forget_at > now() AND NOT EXISTS (SELECT 1 FROM counted)`,
        [tag, lockAt, baseSec, UNKNOWN_PHONE_MEMORY_SEC],
      );
      const row = rows[0];
      if (row?.reserved) return tag;
      // Locked: say so. (No row or not locked: a concurrent attempt changed it after this statement's
      // snapshot was taken, or the lock just ended; try again.)
      if (row) this.assertNotLocked({ lockedUntil: row.locked_until, hardLocked: row.hard_locked });
    }
    throw new AppException('ACCOUNT_LOCKED');
  }

  /** The reserved attempt on a phone with no account failed (it always does): throws the lock when it is now locked. */
  async recordUnknownFailure(tag: string): Promise<void> {
    const rows = await queryRows<Omit<UnknownRow, 'reserved'>>(
      this.db,
      `UPDATE auth.unknown_phone_lockouts SET hard_locked = hard_locked OR failed_pin_attempts >= $2::int
        WHERE phone_tag = $1 RETURNING failed_pin_attempts, locked_until, hard_locked`,
      [tag, this.config.PIN_HARD_LOCK_THRESHOLD],
    );
    if (rows[0]) this.assertNotLocked({ lockedUntil: rows[0].locked_until, hardLocked: rows[0].hard_locked });
  }

  private policy(): { lockAt: number; baseSec: number } {
    return { lockAt: this.config.PIN_LOCK_THRESHOLD, baseSec: this.config.PIN_LOCK_BASE_SEC };
  }

  private lockedError(until: Date): AppException {
    const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
    return new AppException(
      'ACCOUNT_LOCKED',
      `Too many failed PIN attempts; account locked for ${seconds} more seconds (until ${until.toISOString()})`,
      {
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
}
