import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ConsentProofAnswer } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { assertPinRule } from '../crypto/pin-policy';
import { IdentityProvider } from '../identity/identity-provider';
import { LoginService, type VerifiedPin } from '../login/login.service';
import { ConsentProofIssuer } from '../sessions/consent-proof.service';
import { SessionService } from '../sessions/session.service';
import { LocalUserStore } from '../users/local-user.store';

/** PIN check and change for a signed-in user. */
@Injectable()
export class PinService {
  private readonly logger = new Logger(PinService.name);

  constructor(
    private readonly users: LocalUserStore,
    private readonly login: LoginService,
    private readonly idp: IdentityProvider,
    private readonly sessions: SessionService,
    private readonly consent: ConsentProofIssuer,
    private readonly db: DataSource,
  ) {}

  /**
   * Counts toward the lockout like a login. With an intent id, a right PIN also yields the proof
   * of the PIN step of that intent, for this user (the ledger's PIN_VERIFIED needs it).
   */
  async check(userId: string, pin: string, intentId?: string): Promise<{ valid: true } & Partial<ConsentProofAnswer>> {
    const { user } = await this.verifiedPin(userId, pin);
    if (!intentId) return { valid: true };
    const proof = await this.consent.issue(user.id, intentId, 'PIN');
    this.logger.log({ msg: 'consent proof issued', step: 'PIN', userId: user.id, intentId });
    return { valid: true, ...proof };
  }

  /** Needs the old PIN; ends every other session of the user (the current one stays). */
  async change(userId: string, sessionId: string, oldPin: string, newPin: string): Promise<{ changed: true; revokedSessions: number }> {
    const { user, checkedAt } = await this.verifiedPin(userId, oldPin);
    assertPinRule(newPin, user.phone);
    if (newPin === oldPin) throw new AppException('PIN_POLICY_VIOLATION', 'The new PIN must differ from the current PIN');
    // The new PIN, its time and the end of the other sessions in one transaction (a login that
    // checked the old PIN just before gets no session: LocalUserStore.markPinSet). A reset that came
    // after the old PIN was checked here wins: this change is refused as made with a PIN that is no
    // longer the account's, and rolled back, so it cannot undo the owner's reset.
    const revoked = await this.db.transaction(async (m) => {
      await this.idp.setPin(user.idpUserId, newPin, m);
      if (!(await this.users.markPinSet(user.id, m, checkedAt))) throw new AppException('INVALID_PIN');
      return this.sessions.revokeAllForUser(user.id, 'PIN_CHANGED', sessionId, m);
    });
    this.logger.log({ msg: 'PIN changed', userId: user.id, revokedSessions: revoked.length });
    return { changed: true, revokedSessions: revoked.length };
  }

  private async verifiedPin(userId: string, pin: string): Promise<VerifiedPin> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException('TOKEN_REVOKED');
    const verified = await this.login.checkPin(user, pin);
    if (!verified) throw new AppException('INVALID_PIN');
    return verified;
  }
}
