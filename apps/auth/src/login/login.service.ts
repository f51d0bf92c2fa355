import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import type { SecondFactorChallenge } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { MetricsService } from '@mm/platform';
import { IdentityProvider } from '../identity/identity-provider';
import type { TokenPair } from '../sessions/token-pair';
import { TokenIssuer } from '../sessions/token-issuer.service';
import type { LocalUser } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import { PinLockout } from '../users/pin-lockout.service';
import { SecondFactorService } from '../second-factor/second-factor.service';
import { requiresSecondFactor } from '../second-factor/staff-roles';

/**
 * Phone + PIN login. A phone with no account goes through the same steps as a wrong PIN: the same
 * lock schedule (its own counter, see PinLockout.reserveUnknown), one scrypt against a dummy hash,
 * and the same answers (INVALID_CREDENTIALS, then ACCOUNT_LOCKED with Retry-After, then
 * ACCOUNT_HARD_LOCKED). A locked account is refused before its PIN is looked at.
 */
/** A right PIN: whose, and when its check was reserved (a PIN replaced after that opens nothing). */
export interface VerifiedPin {
  user: LocalUser;
  checkedAt: Date;
}

@Injectable()
export class LoginService {
  private readonly logins: Counter<'outcome'>;

  constructor(
    private readonly users: LocalUserStore,
    private readonly idp: IdentityProvider,
    private readonly lockout: PinLockout,
    private readonly issuer: TokenIssuer,
    private readonly secondFactor: SecondFactorService,
    metrics: MetricsService,
  ) {
    this.logins = metrics.counter('auth_login_total', 'Phone + PIN logins by outcome (the error code, or OK)', ['outcome']);
  }

  /**
   * Tokens for a customer, merchant or agent; for staff, the second-factor challenge
   * (SecondFactorService) instead. A staff member's right PIN neither counts as a failure nor clears
   * the account's failure count: only a completed sign-in does, so the code guesses after a stolen
   * PIN stay counted, and an abandoned sign-in costs nothing.
   */
  async login(phone: string, pin: string, userAgent?: string): Promise<TokenPair | SecondFactorChallenge> {
    try {
      const user = await this.users.findByPhone(phone);
      const staff = user !== undefined && requiresSecondFactor(user.roles);
      const verified = user ? await this.checkPin(user, pin, { keepFailureCount: staff }) : await this.unknownPhone(phone, pin);
      if (!verified) throw new AppException('INVALID_CREDENTIALS');
      const { user: account, checkedAt } = verified;
      if (account.status !== 'ACTIVE') throw new AppException('ACCOUNT_DISABLED');
      if (staff) {
        const challenge = await this.secondFactor.challenge(account, checkedAt);
        this.logins.inc({ outcome: challenge.secondFactor });
        return challenge;
      }
      // A PIN replaced since this check began (a reset or change racing the login) opens no session.
      const pair = await this.issuer.openSession(account.id, account.roles, userAgent, checkedAt);
      if (!pair) throw new AppException('INVALID_CREDENTIALS');
      this.logins.inc({ outcome: 'OK' });
      return pair;
    } catch (error) {
      this.logins.inc({ outcome: error instanceof AppException ? error.code : 'ERROR' });
      throw error;
    }
  }

  /**
   * The PIN check shared by login and check-pin: lock check, attempt reserved, scrypt, outcome recorded.
   * Returns the user and when the check was reserved (by the database's clock) on success; undefined
   * on a wrong PIN, or on a right one replaced (reset or changed) while it was checked, which is
   * counted neither way. Throws the lock.
   */
  async checkPin(user: LocalUser, pin: string, options: { keepFailureCount?: boolean } = {}): Promise<VerifiedPin | undefined> {
    // The reservation refuses a locked account before its PIN is looked at, by the database's clock,
    // as it does a phone without an account: no check here on this process's clock.
    const check = await this.lockout.reserve(user);
    let valid: boolean;
    try {
      valid = await this.idp.verifyPin(user.idpUserId, pin);
    } catch (error) {
      // No verdict: the reserved check gives its place back. Should that fail too, the place is
      // forgotten after PIN_CHECK_MEMORY_SEC anyway; the error that matters is the first one.
      await this.lockout.release(check).catch(() => undefined);
      throw error;
    }
    if (!valid) {
      await this.lockout.recordFailure(check);
      return undefined;
    }
    if (options.keepFailureCount) await this.lockout.release(check, { verdict: true });
    else if (!(await this.lockout.recordSuccess(check))) return undefined;
    return { user, checkedAt: check.reservedAt };
  }

  /**
   * A login on a phone with no account, step for step like a wrong PIN: the phone's own attempt
   * counter (the lock thrown as for an account), the identity provider asked about an id that
   * matches nothing (one scrypt against its dummy hash), the failure recorded.
   */
  private async unknownPhone(phone: string, pin: string): Promise<undefined> {
    const check = await this.lockout.reserveUnknown(phone);
    try {
      await this.idp.verifyPin(randomUUID(), pin);
    } catch (error) {
      // As checkPin does for an account, so that the next answer does not tell the two apart.
      await this.lockout.releaseUnknown(check).catch(() => undefined);
      throw error;
    }
    await this.lockout.recordUnknownFailure(check);
    return undefined;
  }
}
