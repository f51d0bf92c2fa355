/**
 * The shapes both PIN counters answer in: an account's (`auth.users`, LocalUserStore) and a phone's
 * with no account (`auth.unknown_phone_lockouts`, UnknownPhoneLockoutStore). PinLockout decides on
 * them alike, so that the two give the same answers.
 */

/** The lock schedule: PIN_LOCK_THRESHOLD, PIN_LOCK_BASE_SEC and PIN_HARD_LOCK_THRESHOLD. */
export interface PinLockPolicy {
  lockAt: number;
  baseSec: number;
  hardLockAt: number;
}

/** A counter row's lock as the statement that read it found it, by the database's clock. */
export interface LockState {
  lockedUntil: Date | null;
  hardLocked: boolean;
  /** the temporary lock's seconds left (pinLockLeftSec), null when not locked */
  lockLeftSec: number | null;
}

/** What a reservation found: whether the check may go on, else why not. */
export interface PinReservation {
  /** the database's time of the reservation; null when not reserved */
  reservedAt: Date | null;
  /** not reserved because the checks in flight fill every slot left before the lock */
  busy: boolean;
  /** the row's lock (a refusal by a lock shows here) */
  lock: LockState;
}

/** The columns a counter's statements return for a lock (`pinLockLeftSec` as lock_left_sec). */
export interface LockRow {
  locked_until: Date | null;
  hard_locked: boolean;
  lock_left_sec: number | null;
}

/** The columns a counter's reservation statement returns. */
export interface ReservationRow extends LockRow {
  reserved_at: Date | null;
  busy: boolean;
}

export function toLockState(row: LockRow): LockState {
  return { lockedUntil: row.locked_until, hardLocked: row.hard_locked, lockLeftSec: row.lock_left_sec };
}

export function toReservation(row: ReservationRow): PinReservation {
  return { reservedAt: row.reserved_at, busy: row.busy, lock: toLockState(row) };
}
