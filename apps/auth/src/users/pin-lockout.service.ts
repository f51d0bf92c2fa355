import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { AuthConfig } from '../auth.config';
import { PIN_CHECK_MEMORY_SEC } from '../common/sql';
import { AuthSecrets } from '../crypto/auth-secrets';
import type { LocalUser } from './local-user';
import { LocalUserStore } from './local-user.store';
import type { LockState, PinLockPolicy, PinReservation } from './pin-counter';
import { UnknownPhoneLockoutStore } from './unknown-phone-lockout.store';

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
    private readonly unknownPhones: UnknownPhoneLockoutStore,
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
    const reservedAt = await this.reserveOn(
      () => this.users.reservePinAttempt(user.id, this.config.PIN_LOCK_THRESHOLD),
      'INVALID_CREDENTIALS',
    );
    return { userId: user.id, reservedAt };
  }

  /** The check failed: counted, and throws the lock when the account is now locked. */
  async recordFailure(check: PinCheck): Promise<void> {
    this.assertCounted(await this.users.confirmPinFailure(check.userId, this.policy(), check.reservedAt));
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
    // No row (a forgotten one counts as none) and not reserved: a concurrent attempt changed it; once more.
    const reservedAt = await this.reserveOn(() => this.unknownPhones.reserve(tag, this.config.PIN_LOCK_THRESHOLD), undefined);
    return { tag, reservedAt };
  }

  /**
   * The reserved attempt on a phone with no account failed (it always does): counted as for an
   * account, and throws the lock when it is now locked; dropped, as for an account, when the
   * reservation was already forgotten.
   */
  async recordUnknownFailure(check: UnknownPinCheck): Promise<void> {
    this.assertCounted(await this.unknownPhones.confirmFailure(check.tag, this.policy(), check.reservedAt));
  }

  /** A check on a phone with no account cut short by an error: its place given back, as for an account. */
  async releaseUnknown(check: UnknownPinCheck): Promise<void> {
    await this.unknownPhones.release(check.tag, check.reservedAt);
  }

  /**
   * The reservation loop both counters share: the time of the reservation, or the refusal the row
   * says (its lock, or PIN_CHECK_IN_PROGRESS). A row found neither reserved, locked nor busy was
   * changed by a concurrent check after the statement's snapshot was taken (or its lock just ended):
   * once more. `missing`: what no row at all means (an account deleted meanwhile; for a phone with
   * no account, a concurrent change too).
   */
  private async reserveOn(reserve: () => Promise<PinReservation | undefined>, missing: 'INVALID_CREDENTIALS' | undefined): Promise<Date> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const found = await reserve();
      if (!found) {
        if (missing) throw new AppException(missing);
        continue;
      }
      if (found.reservedAt) return found.reservedAt;
      this.assertNotLocked(found.lock);
      if (found.busy) throw checksInProgress();
    }
    throw checksInProgress();
  }

  /** A failure's statement found the row (else its reservation was forgotten: dropped): throws the lock it set. */
  private assertCounted(lock: LockState | undefined): void {
    if (!lock) throw checkTooLate();
    this.assertNotLocked(lock);
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
