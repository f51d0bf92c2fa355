import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import type { Role } from '../common/roles';
import { queryRows } from '@mm/platform';
import {
  RELAXED_COMMIT,
  pinCheckForgotten,
  pinCheckSlots,
  pinChecksInFlight,
  pinLockEnd,
  pinLockLeftSec,
  pinNotLocked,
} from '../common/sql';
import type { LocalUser } from './local-user';
import {
  type LockRow,
  type LockState,
  type PinLockPolicy,
  type PinReservation,
  type ReservationRow,
  toLockState,
  toReservation,
} from './pin-counter';

interface UserRow {
  id: string;
  idp_user_id: string;
  phone: string;
  roles: Role[];
  status: 'ACTIVE' | 'DISABLED';
  profile_id: string | null;
  failed_pin_attempts: number;
  locked_until: Date | null;
  hard_locked: boolean;
  created_at: Date;
  pin_set_at: Date | null;
}

const COLUMNS = 'id, idp_user_id, phone, roles, status, profile_id, failed_pin_attempts, locked_until, hard_locked, created_at, pin_set_at';

function toUser(row: UserRow): LocalUser {
  return {
    id: row.id,
    idpUserId: row.idp_user_id,
    phone: row.phone,
    roles: row.roles,
    status: row.status,
    profileId: row.profile_id,
    failedPinAttempts: row.failed_pin_attempts,
    lockedUntil: row.locked_until,
    hardLocked: row.hard_locked,
    createdAt: row.created_at,
    pinSetAt: row.pin_set_at,
  };
}

export interface NewLocalUser {
  /** the caller's choice of id (the orchestrator's saga), else a new one */
  id?: string;
  idpUserId: string;
  phone: string;
  roles: Role[];
  profileId?: string | null;
  /** DISABLED: created by a workflow that activates the user as its last step (no login before) */
  status?: 'ACTIVE' | 'DISABLED';
}

/** The local user store (`auth.users`): roles, status, profile link and PIN lockout counters. */
@Injectable()
export class LocalUserStore {
  constructor(private readonly db: DataSource) {}

  /** Idempotent on the IdP user: the same input again returns the same user; a different one is a conflict. */
  async create(input: NewLocalUser): Promise<{ user: LocalUser; created: boolean }> {
    const roles = [...new Set(input.roles)].sort();
    const rows = await queryRows<UserRow>(
      this.db,
      `INSERT INTO auth.users (id, idp_user_id, phone, roles, profile_id, status) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [input.id ?? randomUUID(), input.idpUserId, input.phone, roles, input.profileId ?? null, input.status ?? 'ACTIVE'],
    );
    if (rows.length > 0) return { user: toUser(rows[0]), created: true };
    const existing = await this.findBy('idp_user_id', input.idpUserId);
    const same =
      existing &&
      (input.id === undefined || existing.id === input.id) &&
      existing.phone === input.phone &&
      existing.roles.join() === roles.join() &&
      (input.profileId === undefined || existing.profileId === (input.profileId ?? null));
    if (same) return { user: existing, created: false };
    throw new AppException('USER_ALREADY_EXISTS');
  }

  findById(id: string): Promise<LocalUser | undefined> {
    return this.findBy('id', id);
  }

  findByPhone(phone: string): Promise<LocalUser | undefined> {
    return this.findBy('phone', phone);
  }

  /** Answers the user after the change (undefined when there is no such user). */
  async setStatus(id: string, status: LocalUser['status'], manager: EntityManager | DataSource = this.db): Promise<LocalUser | undefined> {
    const rows = await queryRows<UserRow>(
      manager,
      `UPDATE auth.users SET status = $2, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status],
    );
    return rows[0] && toUser(rows[0]);
  }

  async setRoles(id: string, roles: Role[], manager: EntityManager | DataSource = this.db): Promise<LocalUser | undefined> {
    const rows = await queryRows<UserRow>(
      manager,
      `UPDATE auth.users SET roles = $2, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, [...new Set(roles)].sort()],
    );
    return rows[0] && toUser(rows[0]);
  }

  async delete(id: string): Promise<boolean> {
    const rows = await queryRows(this.db, `DELETE FROM auth.users WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }

  async adminExists(manager: EntityManager | DataSource = this.db): Promise<boolean> {
    const rows = await queryRows(manager, `SELECT 1 FROM auth.users WHERE 'ADMIN' = ANY (roles) LIMIT 1`);
    return rows.length > 0;
  }

  /**
   * Reserves a PIN check *before* the PIN is hashed, atomically, and only while the account is not
   * locked and fewer checks are in flight than attempts are left before the lock
   * (`pinCheckSlots`): however many requests arrive at once, if every one of them is wrong, no more
   * PINs are tried than the threshold allows. A reservation counts no failure and sets no lock;
   * `confirmPinFailure`, `clearPinFailures` or `releasePinAttempt` ends it, given `reservedAt`, the
   * database's time of the reservation. Answers the row in every case: `reserved`, or why not
   * (`busy`: the checks in flight fill the slots; otherwise the lock the row carries, or a
   * concurrent change to re-read).
   */
  async reservePinAttempt(id: string, lockAt: number): Promise<PinReservation | undefined> {
    const free = `${pinChecksInFlight()} < ${pinCheckSlots('failed_pin_attempts', '$2')}`;
    // Relaxed commit: a reservation lost with a crashed database costs nothing; login latency matters.
    const rows = await queryRows<ReservationRow>(
      this.db,
      // pin_checks_since never moves back: a reservation that waited for the row lock still carries
      // its transaction's earlier start as now().
      `WITH reserved AS (
         UPDATE auth.users SET
           pin_checks_in_flight = ${pinChecksInFlight()} + 1,
           pin_checks_since = GREATEST(pin_checks_since, now()),
           updated_at = now()
         FROM ${RELAXED_COMMIT}
         WHERE id = $1 AND ${pinNotLocked()} AND ${free}
         RETURNING locked_until, hard_locked, now() AS reserved_at, false AS busy, NULL::int AS lock_left_sec
       )
       SELECT * FROM reserved
       UNION ALL
       SELECT locked_until, hard_locked, NULL AS reserved_at, NOT (${free}) AS busy, ${pinLockLeftSec()} AS lock_left_sec FROM auth.users
        WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM reserved)`,
      [id, lockAt],
    );
    return rows[0] && toReservation(rows[0]);
  }

  /**
   * The reserved check found the PIN (or code) wrong: the failure is counted, the lock set from the
   * threshold on (doubling with each further failure), and at `hardLockAt` the account is locked
   * until a PIN reset. Undefined, with nothing counted, when the reservation is already forgotten
   * (`late`): its verdict must then not be told, since the place it held was given to another check.
   */
  async confirmPinFailure(id: string, policy: PinLockPolicy, reservedAt: Date): Promise<LockState | undefined> {
    const rows = await queryRows<LockRow>(
      this.db,
      `UPDATE auth.users SET
         failed_pin_attempts = failed_pin_attempts + 1,
         locked_until = COALESCE(${pinLockEnd('failed_pin_attempts + 1', '$2', '$3')}, locked_until),
         hard_locked = hard_locked OR failed_pin_attempts + 1 >= $4::int,
         pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0),
         updated_at = now()
       WHERE id = $1 AND NOT ${pinCheckForgotten('$5')} RETURNING locked_until, hard_locked, ${pinLockLeftSec()} AS lock_left_sec`,
      [id, policy.lockAt, policy.baseSec, policy.hardLockAt, reservedAt],
    );
    return rows[0] && toLockState(rows[0]);
  }

  /**
   * The reserved check ends without a verdict on the account's failures: a staff member's right PIN
   * (only the completed sign-in clears the count), or a check cut short by an error. Failures and
   * lock stay as they are. False when the reservation was already forgotten (nothing to give back).
   */
  async releasePinAttempt(id: string, reservedAt: Date): Promise<boolean> {
    const rows = await queryRows(
      this.db,
      `UPDATE auth.users SET pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0), updated_at = now()
       FROM ${RELAXED_COMMIT} WHERE id = $1 AND NOT ${pinCheckForgotten('$2')} RETURNING id`,
      [id, reservedAt],
    );
    return rows.length > 0;
  }

  /**
   * The reserved check succeeded: count and temporary lock cleared (a hard lock only by a reset).
   * Says what the sign-in may do: `cleared`; `hard-locked` (the account was hard-locked meanwhile:
   * nothing cleared); `replaced` (the PIN was replaced by a reset or a change after the check was
   * reserved, so the PIN it found right may be the old one: nothing cleared, the check ended);
   * `late` (the reservation was already forgotten: nothing done, no verdict to tell). Waits for a
   * replacement in progress (its transaction holds the row), so it sees that replacement's time.
   */
  async clearPinFailures(id: string, reservedAt: Date): Promise<'cleared' | 'hard-locked' | 'replaced' | 'late'> {
    const replaced = `COALESCE(pin_set_at >= $2::timestamptz, false)`;
    const rows = await queryRows<{ hard_locked: boolean; replaced: boolean }>(
      this.db,
      `UPDATE auth.users SET
         failed_pin_attempts = CASE WHEN hard_locked OR ${replaced} THEN failed_pin_attempts ELSE 0 END,
         locked_until = CASE WHEN hard_locked OR ${replaced} THEN locked_until END,
         pin_checks_in_flight = GREATEST(${pinChecksInFlight()} - 1, 0),
         updated_at = now()
       FROM ${RELAXED_COMMIT} WHERE id = $1 AND NOT ${pinCheckForgotten('$2')} RETURNING hard_locked, ${replaced} AS replaced`,
      [id, reservedAt],
    );
    if (rows.length === 0) return 'late';
    if (rows[0].hard_locked) return 'hard-locked';
    return rows[0].replaced ? 'replaced' : 'cleared';
  }

  /**
   * Records that the account's PIN was just replaced (by the database's clock), in `manager`'s
   * transaction, which stores the new PIN and then ends the account's sessions: the row stays locked
   * until it commits, so a session being opened on a PIN checked before (SessionService.create with
   * `pinCheckedAt`) either waits and is refused, or is opened first and ended by that transaction.
   * `unlessReplacedSince`: a change's own PIN check; false, and nothing written, when another
   * replacement (a reset) came after it, so the change must not overwrite that PIN.
   */
  async markPinSet(id: string, manager: EntityManager, unlessReplacedSince?: Date): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE auth.users SET pin_set_at = clock_timestamp(), updated_at = now()
        WHERE id = $1 AND ($2::timestamptz IS NULL OR pin_set_at IS NULL OR pin_set_at < $2::timestamptz) RETURNING id`,
      [id, unlessReplacedSince ?? null],
    );
    return rows.length > 0;
  }

  /** After a PIN reset: every lock lifted. */
  async unlock(id: string, manager: EntityManager | DataSource = this.db): Promise<void> {
    await queryRows(
      manager,
      `UPDATE auth.users SET failed_pin_attempts = 0, locked_until = NULL, hard_locked = false, updated_at = now() WHERE id = $1`,
      [id],
    );
  }

  private async findBy(column: 'id' | 'phone' | 'idp_user_id', value: string): Promise<LocalUser | undefined> {
    const rows = await queryRows<UserRow>(this.db, `SELECT ${COLUMNS} FROM auth.users WHERE ${column} = $1`, [value]);
    return rows[0] && toUser(rows[0]);
  }
}
