import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import {
  PIN_CHECK_MEMORY_SEC,
  RELAXED_COMMIT,
  pinCheckForgotten,
  pinCheckSlots,
  pinChecksInFlight,
  pinLockEnd,
  pinLockLeftSec,
  pinNotLocked,
} from '../common/sql';
import { AuthSecrets } from '../crypto/auth-secrets';
import type { LocalUser } from './local-user';
import { LocalUserStore, type PinLockPolicy } from './local-user.store';

/**
 * What the lock decision needs, as a counter row's statement read it (an account's, or a phone's with
 * no account): the lock is judged by the database's clock, never this process's.
 */
export interface LockState {
  lockedUntil: Date | null;
  hardLocked: boolean;
  /** the temporary lock's seconds left (pinLockLeftSec), null when not locked */
  lockLeftSec: number | null;
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
  locked_until: Date | null;
  hard_locked: boolean;
  reserved_at: Date | null;
  busy: boolean;
  lock_left_sec: number | null;
}

/** A PIN check reserved on an account: ended by exactly one of recordFailure, recordSuccess or release. */
export interface PinCheck {
  userId: string;
  /** the database's time of the reservation (its outcome is dropped once it is forgotten) */
  reservedAt: Date;
}

/** A PIN check reserved on a phone with no account: ended by recordUnknownFailure or releaseUnknown. */
export interface UnknownPinCheck {
  /** the counter row's name (AuthSecrets.phoneTag) */
  tag: string;
  reservedAt: Date;
}

/**
 * Failed PIN attempts per account (login, check-pin and change-pin share the count): a temporary
 * lock at PIN_LOCK_THRESHOLD failures (PIN_LOCK_BASE_SEC, doubling with each further failure), a
 * hard lock at PIN_HARD_LOCK_THRESHOLD that only a PIN reset lifts. A success clears the count.
 * Each check is reserved before the PIN is hashed, and no more checks may be in flight at once than
 * attempts are left before the lock, so parallel requests cannot try more PINs than the thresholds
 * allow; one request too many waits for the others (PIN_CHECK_IN_PROGRESS) rather than being told
 * the account is locked. A failure counts, and locks, once its PIN is found wrong.
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

  /** Throws ACCOUNT_LOCKED / ACCOUNT_HARD_LOCKED for a row a statement found locked. */
  private assertNotLocked(state: LockState): void {
    if (state.hardLocked) throw new AppException('ACCOUNT_HARD_LOCKED');
    if (state.lockLeftSec !== null && state.lockedUntil) throw this.lockedError(state.lockedUntil, state.lockLeftSec);
  }

  /**
   * Reserves a PIN check on the account before its PIN is hashed (see LocalUserStore.reservePinAttempt).
   * Throws the lock when the account is locked, and PIN_CHECK_IN_PROGRESS (429, Retry-After 1) while
   * the checks already in flight fill the attempts left before the lock. The check is then ended by
   * exactly one of `recordFailure`, `recordSuccess` or `release`.
   */
  async reserve(user: LocalUser): Promise<PinCheck> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const found = await this.users.reservePinAttempt(user.id, this.config.PIN_LOCK_THRESHOLD);
      if (!found) throw new AppException('INVALID_CREDENTIALS');
      if (found.reservedAt) return { userId: user.id, reservedAt: found.reservedAt };
      this.assertNotLocked({ ...found.user, lockLeftSec: found.lockLeftSec });
      if (found.busy) throw checksInProgress();
      // Neither locked nor busy in this statement's snapshot: a concurrent check changed the row
      // after it was taken (or a lock just ended). Once more.
    }
    throw checksInProgress();
  }

  /** The check failed: counted, and throws the lock when the account is now locked. */
  async recordFailure(check: PinCheck): Promise<void> {
    const lock = await this.users.confirmPinFailure(check.userId, this.policy(), check.reservedAt);
    if (!lock) throw checkTooLate();
    this.assertNotLocked(lock);
  }

  /**
   * The check succeeded: the count is cleared and true returned. False when the PIN was replaced
   * (reset or changed) after the check was reserved: the PIN it found right may be the old one, so
   * it is no success, and no failure either. Throws when the account was hard-locked meanwhile.
   */
  async recordSuccess(check: PinCheck): Promise<boolean> {
    const outcome = await this.users.clearPinFailures(check.userId, check.reservedAt);
    if (outcome === 'late') throw checkTooLate();
    if (outcome === 'hard-locked') throw new AppException('ACCOUNT_HARD_LOCKED');
    return outcome === 'cleared';
  }

  /**
   * The check ends without touching the count: a staff PIN before its second factor (`verdict`: its
   * outcome is then told, so it must be on time), or a check cut short by an error, whose place is
   * given back at once rather than after PIN_CHECK_MEMORY_SEC.
   */
  async release(check: PinCheck, options: { verdict?: boolean } = {}): Promise<void> {
    const onTime = await this.users.releasePinAttempt(check.userId, check.reservedAt);
    if (options.verdict && !onTime) throw checkTooLate();
  }

  /**
   * For a phone with no account: what `reserve` does for an account, in one statement, so a phone
   * costs the statements of an account, locked or not (neither pays a hash when locked; both locks
   * are judged by the database's clock). Throws the lock, or PIN_CHECK_IN_PROGRESS as for an
   * account; otherwise returns the check to end with `recordUnknownFailure` once the (dummy) PIN
   * check has been paid for, or with `releaseUnknown` when an error stops it.
   */
  async reserveUnknown(phone: string): Promise<UnknownPinCheck> {
    const tag = this.secrets.phoneTag('unknown-phone-lockout', phone);
    // A forgotten row (forget_at passed) counts as no row: its lock, if any, ended long ago. The
    // periodic clean-up (AuthCleanup) deletes such rows; the login path never does.
    const stale = `l.forget_at <= now()`;
    const free = (t: string) => `${pinChecksInFlight(t)} < ${pinCheckSlots(`${t}failed_pin_attempts`, '$2')}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows = await queryRows<UnknownRow>(
        this.db,
        `WITH counted AS (
           INSERT INTO auth.unknown_phone_lockouts AS l
                  (phone_tag, failed_pin_attempts, locked_until, hard_locked, forget_at, pin_checks_in_flight, pin_checks_since)
           SELECT $1, 0, NULL, false, now() + make_interval(secs => $3::double precision), 1, now()
             FROM ${RELAXED_COMMIT}
           ON CONFLICT (phone_tag) DO UPDATE SET
             failed_pin_attempts = CASE WHEN ${stale} THEN 0 ELSE l.failed_pin_attempts END,
             locked_until = CASE WHEN ${stale} THEN NULL ELSE l.locked_until END,
             hard_locked = false,
             -- A live check keeps its row: the clean-up must not delete it before the check's outcome.
             forget_at = CASE WHEN ${stale} THEN now() + make_interval(secs => $3::double precision)
                              ELSE GREATEST(l.forget_at, now() + make_interval(secs => $4::double precision)) END,
             pin_checks_in_flight = CASE WHEN ${stale} THEN 0 ELSE ${pinChecksInFlight('l.')} END + 1,
             pin_checks_since = GREATEST(l.pin_checks_since, now())
           WHERE ${stale} OR (${pinNotLocked('l.')} AND ${free('l.')})
           RETURNING l.locked_until, l.hard_locked, now() AS reserved_at, false AS busy, NULL::int AS lock_left_sec
         )
         SELECT * FROM counted
         UNION ALL
         SELECT locked_until, hard_locked, NULL AS reserved_at, NOT (${free('')}) AS busy, ${pinLockLeftSec()} AS lock_left_sec
           FROM auth.unknown_phone_lockouts
          WHERE phone_tag = $1 AND forget_at > now() AND NOT EXISTS (SELECT 1 FROM counted)`,
        [tag, this.config.PIN_LOCK_THRESHOLD, UNKNOWN_PHONE_MEMORY_SEC, 2 * PIN_CHECK_MEMORY_SEC],
      );
      const row = rows[0];
      if (row?.reserved_at) return { tag, reservedAt: row.reserved_at };
      if (row) {
        this.assertNotLocked({ lockedUntil: row.locked_until, hardLocked: row.hard_locked, lockLeftSec: row.lock_left_sec });
        if (row.busy) throw checksInProgress();
      }
      // No row or free in this statement's snapshot: a concurrent attempt changed it after the
      // snapshot was taken, or the lock just ended; once more.
    }
    throw checksInProgress();
  }

  /**
   * The reserved attempt on a phone with no account failed (it always does): counted as for an
   * account, and throws the lock when it is now locked. The row is kept for UNKNOWN_PHONE_MEMORY_SEC
   * after this failure, or after the lock it sets ends. Dropped, as for an account, when the
   * reservation was already forgotten.
   */
  async recordUnknownFailure(check: UnknownPinCheck): Promise<void> {
    const { lockAt, baseSec, hardLockAt } = this.policy();
    const lockEnd = pinLockEnd('failed_pin_attempts + 1', '$2', '$3');
    const rows = await queryRows<Pick<UnknownRow, 'locked_until' | 'hard_locked' | 'lock_left_sec'>>(
      this.db,
      `UPDATE auth.unknown_phone_lockouts SET
         failed_pin_attempts = failed_pin_attempts + 1,
         locked_until = COALESCE(${lockEnd}, locked_until),
         hard_locked = hard_locked OR failed_pin_attempts + 1 >= $4::int,
         forget_at = GREATEST(now(), ${lockEnd}) + make_interval(secs => $5::double precision),
         pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0)
        WHERE phone_tag = $1 AND NOT ${pinCheckForgotten('$6')} RETURNING locked_until, hard_locked, ${pinLockLeftSec()} AS lock_left_sec`,
      [check.tag, lockAt, baseSec, hardLockAt, UNKNOWN_PHONE_MEMORY_SEC, check.reservedAt],
    );
    const row = rows[0];
    if (!row) throw checkTooLate();
    this.assertNotLocked({ lockedUntil: row.locked_until, hardLocked: row.hard_locked, lockLeftSec: row.lock_left_sec });
  }

  /** A check on a phone with no account cut short by an error: its place given back, as for an account. */
  async releaseUnknown(check: UnknownPinCheck): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE auth.unknown_phone_lockouts SET pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0)
         FROM ${RELAXED_COMMIT} WHERE phone_tag = $1 AND NOT ${pinCheckForgotten('$2')}`,
      [check.tag, check.reservedAt],
    );
  }

  private policy(): PinLockPolicy {
    return {
      lockAt: this.config.PIN_LOCK_THRESHOLD,
      baseSec: this.config.PIN_LOCK_BASE_SEC,
      hardLockAt: this.config.PIN_HARD_LOCK_THRESHOLD,
    };
  }

  private lockedError(until: Date, secondsLeft: number): AppException {
    const seconds = Math.max(1, secondsLeft);
    return new AppException(
      'ACCOUNT_LOCKED',
      `Too many failed PIN attempts; account locked for ${seconds} more seconds (until ${until.toISOString()})`,
      {
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
}

/** Every attempt left before the lock is being checked right now: retry once they are done (a second at most, usually). */
function checksInProgress(): AppException {
  return new AppException('PIN_CHECK_IN_PROGRESS', undefined, { headers: { 'retry-after': '1' } });
}

/**
 * The check outlived its reservation (PIN_CHECK_MEMORY_SEC): its place may have gone to another
 * check, so its verdict is not told and nothing was counted. Only a stalled process gets here.
 */
function checkTooLate(): AppException {
  return new AppException(
    'SERVICE_UNAVAILABLE',
    `The PIN check took longer than ${PIN_CHECK_MEMORY_SEC} s and its outcome was dropped; retry`,
    { headers: { 'retry-after': '1' } },
  );
}
