import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@mm/platform';
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
import {
  type LockRow,
  type LockState,
  type PinLockPolicy,
  type PinReservation,
  type ReservationRow,
  toLockState,
  toReservation,
} from './pin-counter';

/**
 * How long the counter of a phone with no account is kept after its last counted failure (after
 * its lock ends, when it is locked). An account keeps its count until a success or a PIN reset;
 * the counter of an unknown phone cannot be kept for ever (anyone can make one for any phone), so
 * it is forgotten after this time. A month is far longer than the whole lock schedule (about 8 h
 * from the 5th failure to the hard lock at the defaults), and longer than an account owner
 * usually takes to sign in or reset a forgotten PIN, which also clears an account's count.
 */
export const UNKNOWN_PHONE_MEMORY_SEC = 30 * 24 * 3600;

/**
 * The PIN counters of phones with no account (`auth.unknown_phone_lockouts`, a row per keyed digest
 * of the phone): the statements LocalUserStore runs on an account's counter, for such a phone. A
 * forgotten row (forget_at passed) counts as no row: its lock, if any, ended long ago. The periodic
 * clean-up (AuthCleanup) deletes such rows; the login path never does.
 */
@Injectable()
export class UnknownPhoneLockoutStore {
  constructor(private readonly db: DataSource) {}

  /** As LocalUserStore.reservePinAttempt, creating the row (or starting a forgotten one over). */
  async reserve(tag: string, lockAt: number): Promise<PinReservation | undefined> {
    const stale = `l.forget_at <= now()`;
    const free = (t: string) => `${pinChecksInFlight(t)} < ${pinCheckSlots(`${t}failed_pin_attempts`, '$2')}`;
    const rows = await queryRows<ReservationRow>(
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
      [tag, lockAt, UNKNOWN_PHONE_MEMORY_SEC, 2 * PIN_CHECK_MEMORY_SEC],
    );
    return rows[0] && toReservation(rows[0]);
  }

  /**
   * As LocalUserStore.confirmPinFailure; the row is then kept for UNKNOWN_PHONE_MEMORY_SEC after this
   * failure, or after the lock it sets ends.
   */
  async confirmFailure(tag: string, policy: PinLockPolicy, reservedAt: Date): Promise<LockState | undefined> {
    const lockEnd = pinLockEnd('failed_pin_attempts + 1', '$2', '$3');
    const rows = await queryRows<LockRow>(
      this.db,
      `UPDATE auth.unknown_phone_lockouts SET
         failed_pin_attempts = failed_pin_attempts + 1,
         locked_until = COALESCE(${lockEnd}, locked_until),
         hard_locked = hard_locked OR failed_pin_attempts + 1 >= $4::int,
         forget_at = GREATEST(now(), ${lockEnd}) + make_interval(secs => $5::double precision),
         pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0)
        WHERE phone_tag = $1 AND NOT ${pinCheckForgotten('$6')} RETURNING locked_until, hard_locked, ${pinLockLeftSec()} AS lock_left_sec`,
      [tag, policy.lockAt, policy.baseSec, policy.hardLockAt, UNKNOWN_PHONE_MEMORY_SEC, reservedAt],
    );
    return rows[0] && toLockState(rows[0]);
  }

  /** As LocalUserStore.releasePinAttempt (a check stopped by an error). */
  async release(tag: string, reservedAt: Date): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE auth.unknown_phone_lockouts SET pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0)
         FROM ${RELAXED_COMMIT} WHERE phone_tag = $1 AND NOT ${pinCheckForgotten('$2')}`,
      [tag, reservedAt],
    );
  }
}
