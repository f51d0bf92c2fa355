import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppException } from '@mm/errors';
import { MetricsService } from '@mm/platform';
import { IdentityProvider } from '../identity/identity-provider';
import type { TokenPair } from '../sessions/token-pair';
import { TokenIssuer } from '../sessions/token-issuer.service';
import type { LocalUser } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import { PinLockout } from '../users/pin-lockout.service';

/**
 * Phone + PIN login. An unknown phone costs one scrypt against a dummy hash, like a wrong PIN, and
 * gets the same INVALID_CREDENTIALS; a locked account is refused before its PIN is looked at.
 */
@Injectable()
export class LoginService {
  private readonly logins: Counter<'outcome'>;

  constructor(
    private readonly users: LocalUserStore,
    private readonly idp: IdentityProvider,
    private readonly lockout: PinLockout,
    private readonly issuer: TokenIssuer,
    metrics: MetricsService,
  ) {
    this.logins = metrics.counter('auth_login_total', 'Phone + PIN logins by outcome (the error code, or OK)', ['outcome']);
  }

  async login(phone: string, pin: string): Promise<TokenPair> {
    try {
      const user = await this.users.findByPhone(phone);
      const verified = await this.checkPin(user, pin);
      if (!verified) throw new AppException('INVALID_CREDENTIALS');
      if (verified.status !== 'ACTIVE') throw new AppException('ACCOUNT_DISABLED');
      const pair = await this.issuer.openSession(verified.id, verified.roles);
      this.logins.inc({ outcome: 'OK' });
      return pair;
    } catch (error) {
      this.logins.inc({ outcome: error instanceof AppException ? error.code : 'ERROR' });
      throw error;
    }
  }

  /**
   * The PIN check shared by login and check-pin: lock check, attempt reserved, scrypt, outcome recorded.
   * Returns the user on success, undefined on a wrong PIN or unknown user (or throws the lock).
   */
  async checkPin(user: LocalUser | undefined, pin: string): Promise<LocalUser | undefined> {
    if (!user) {
      // Same statements and the same hash as a wrong PIN, against an id that matches nothing.
      const nobody = randomUUID();
      await this.lockout.shadowAttempt(nobody);
      await this.idp.verifyPin(nobody, pin);
      await this.lockout.shadowAttempt(nobody);
      return undefined;
    }
    this.lockout.assertNotLocked(user);
    await this.lockout.reserve(user);
    if (!(await this.idp.verifyPin(user.idpUserId, pin))) {
      await this.lockout.recordFailure(user);
      return undefined;
    }
    await this.lockout.recordSuccess(user);
    return user;
  }
}
