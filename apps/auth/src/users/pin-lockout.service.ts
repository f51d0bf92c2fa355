import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { AuthConfig } from '../auth.config';
import type { LocalUser } from './local-user';
import { LocalUserStore } from './local-user.store';

/**
 * Failed PIN attempts per account (login, check-pin and change-pin share the count): a temporary
 * lock at PIN_LOCK_THRESHOLD failures (PIN_LOCK_BASE_SEC, doubling with each further failure), a
 * hard lock at PIN_HARD_LOCK_THRESHOLD that only a PIN reset lifts. A success clears the count.
 * Attempts are counted before the PIN is checked, so parallel requests cannot try more PINs than
 * the thresholds allow.
 */
@Injectable()
export class PinLockout {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly users: LocalUserStore,
  ) {}

  /** Throws ACCOUNT_LOCKED / ACCOUNT_HARD_LOCKED before any PIN is even looked at. */
  assertNotLocked(user: LocalUser): void {
    if (user.hardLocked) throw new AppException('ACCOUNT_HARD_LOCKED');
    if (user.lockedUntil && user.lockedUntil.getTime() > Date.now()) throw this.lockedError(user.lockedUntil);
  }

  /**
   * Takes one of the account's attempts before the PIN is checked (see LocalUserStore.reservePinAttempt);
   * throws the lock when none is left.
   */
  async reserve(user: LocalUser): Promise<void> {
    const policy = { lockAt: this.config.PIN_LOCK_THRESHOLD, baseSec: this.config.PIN_LOCK_BASE_SEC };
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.users.reservePinAttempt(user.id, policy)) return;
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

  /** For an unknown account: the statements of a counted attempt, touching nothing (timing parity). */
  async shadowAttempt(nobody: string): Promise<void> {
    await this.users.reservePinAttempt(nobody, { lockAt: this.config.PIN_LOCK_THRESHOLD, baseSec: this.config.PIN_LOCK_BASE_SEC });
  }

  async recordSuccess(user: LocalUser): Promise<void> {
    await this.users.clearPinFailures(user.id);
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
