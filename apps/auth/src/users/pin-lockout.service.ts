import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { AuthConfig } from '../auth.config';
import type { LocalUser } from './local-user';
import { LocalUserStore } from './local-user.store';

/**
 * Failed PIN attempts per account (login and check-pin share the count): a temporary lock at
 * PIN_LOCK_THRESHOLD failures (PIN_LOCK_BASE_SEC, doubling with each further failure), a hard lock
 * at PIN_HARD_LOCK_THRESHOLD that only a PIN reset lifts. A success clears the count.
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

  /** Counts the failure; throws the lock when this failure reached a threshold. */
  async recordFailure(user: LocalUser): Promise<void> {
    const updated = await this.users.recordPinFailure(user.id, {
      lockAt: this.config.PIN_LOCK_THRESHOLD,
      hardLockAt: this.config.PIN_HARD_LOCK_THRESHOLD,
      baseSec: this.config.PIN_LOCK_BASE_SEC,
    });
    this.assertNotLocked(updated);
  }

  async recordSuccess(user: LocalUser): Promise<void> {
    if (user.failedPinAttempts > 0) await this.users.clearPinFailures(user.id);
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
