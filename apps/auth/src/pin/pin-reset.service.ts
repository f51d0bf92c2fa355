import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { maskPhone } from '../common/phone';
import { assertPinRule } from '../crypto/pin-policy';
import { IdentityProvider } from '../identity/identity-provider';
import { OtpService } from '../otp/otp.service';
import { SessionService } from '../sessions/session.service';
import { LocalUserStore } from '../users/local-user.store';

export interface PinResetResult {
  reset: true;
  userId: string;
}

/**
 * PIN reset once a PIN_RESET code was verified: new PIN in the identity provider, every lock lifted
 * and every session ended in the local store. The proof row stays locked for the whole operation,
 * so two resets with one proof cannot both run; a replay with the same proof and the same new PIN
 * (orchestrator retry) answers the same result without doing anything again. Every redemption,
 * replay or refused proof counts a check on the code behind it (OtpService.lockProof, its own
 * count, apart from the wrong guesses at the code): a used proof cannot serve as an unlimited
 * oracle of the new PIN, and a code found at its last try still resets the PIN.
 */
@Injectable()
export class PinResetService {
  private readonly logger = new Logger(PinResetService.name);

  constructor(
    private readonly db: DataSource,
    private readonly users: LocalUserStore,
    private readonly idp: IdentityProvider,
    private readonly otp: OtpService,
    private readonly sessions: SessionService,
  ) {}

  async reset(phone: string, resetToken: string, newPin: string): Promise<PinResetResult> {
    const user = await this.users.findByPhone(phone);
    if (!user) throw new AppException('RESET_TOKEN_INVALID');
    assertPinRule(newPin, phone);
    // A refusal is returned, not thrown, so that the attempt it counted commits before we answer.
    const outcome = await this.db.transaction(async (m): Promise<{ refused: true } | { revoked?: string[] }> => {
      const proof = await this.otp.lockProof(m, resetToken, phone, 'PIN_RESET');
      if ('error' in proof) return { refused: true };
      if (proof.alreadyUsed) {
        // A replay is only the same request if it carries the same new PIN.
        return (await this.idp.verifyPin(user.idpUserId, newPin)) ? {} : { refused: true };
      }
      // The new PIN, its time and the end of the sessions in one transaction: all of it or none.
      await this.idp.setPin(user.idpUserId, newPin, m);
      await this.users.unlock(user.id, m);
      await this.users.markPinSet(user.id, m);
      await this.otp.markProofUsed(m, proof.otpId);
      return { revoked: await this.sessions.revokeAllForUser(user.id, 'PIN_RESET', undefined, m) };
    });
    if ('refused' in outcome) throw new AppException('RESET_TOKEN_INVALID');
    if (outcome.revoked)
      this.logger.log({ msg: 'PIN reset', userId: user.id, phone: maskPhone(phone), revokedSessions: outcome.revoked.length });
    return { reset: true, userId: user.id };
  }
}
