import { Injectable } from '@nestjs/common';
import type { SecondFactorChallenge } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { TokenIssuer } from '../sessions/token-issuer.service';
import type { TokenPair } from '../sessions/token-pair';
import type { LocalUser } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import { PinLockout } from '../users/pin-lockout.service';
import { ChallengeStore } from './challenge.store';
import { SecondFactorStore } from './second-factor.store';
import { TOTP_ISSUER, base32Encode, matchTotp, otpauthUri } from './totp';
import { TotpSecretBox } from './totp-secret-box';

/**
 * The second step of a staff login (RFC 6238 TOTP). After the PIN, the login answers a challenge
 * instead of tokens: TOTP_REQUIRED, or TOTP_ENROLMENT_REQUIRED with a new secret when the user has
 * none yet (the enrolment is stored by its first valid code). `complete` takes the challenge and a
 * code and opens the session.
 *
 * - The challenge is short-lived, bound to its user and used up by the sign-in it opens.
 * - Wrong codes count on the account's PIN lockout counter (the same 5 / 10 thresholds), reserved
 *   before the code is checked, like a PIN; a successful sign-in clears it. The right PIN of a staff
 *   login neither counts nor clears it (LoginService): otherwise a stolen PIN would buy fresh code guesses.
 * - Codes of the step before, the current one and the one after are accepted, each step once: a
 *   step is accepted only if it is later than the last accepted one (a code seen over a shoulder
 *   cannot be replayed, nor an earlier one of the window used after it).
 */
@Injectable()
export class SecondFactorService {
  constructor(
    private readonly users: LocalUserStore,
    private readonly lockout: PinLockout,
    private readonly issuer: TokenIssuer,
    private readonly challenges: ChallengeStore,
    private readonly enrolments: SecondFactorStore,
    private readonly box: TotpSecretBox,
  ) {}

  /** The answer of a staff login whose PIN was right. */
  async challenge(user: LocalUser): Promise<SecondFactorChallenge> {
    if (await this.enrolments.find(user.id)) {
      const { token, expiresAt } = await this.challenges.create({ userId: user.id });
      return { secondFactor: 'TOTP_REQUIRED', challengeToken: token, expiresAt: expiresAt.toISOString() };
    }
    const secret = this.box.newSecret();
    const pendingSecret = this.box.seal(user.id, secret).toString('base64');
    const { token, expiresAt } = await this.challenges.create({ userId: user.id, pendingSecret });
    const encoded = base32Encode(secret);
    return {
      secondFactor: 'TOTP_ENROLMENT_REQUIRED',
      challengeToken: token,
      expiresAt: expiresAt.toISOString(),
      secret: encoded,
      otpauthUri: otpauthUri(encoded, user.phone, TOTP_ISSUER),
    };
  }

  async complete(challengeToken: string, code: string, userAgent: string | undefined): Promise<TokenPair> {
    const challenge = await this.challenges.peek(challengeToken);
    if (!challenge) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    const user = await this.users.findById(challenge.userId);
    if (!user) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    if (user.status !== 'ACTIVE') throw new AppException('ACCOUNT_DISABLED');
    this.lockout.assertNotLocked(user);
    const enrolment = await this.enrolments.find(user.id);
    // An enrolment made or reset since the challenge was issued: its secret is not the one to check.
    if (Boolean(enrolment) === Boolean(challenge.pendingSecret)) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    const sealed = enrolment ? enrolment.sealedSecret : Buffer.from(challenge.pendingSecret!, 'base64');
    const secret = this.box.open(user.id, sealed);
    await this.lockout.reserve(user);
    const step = secret && matchTotp(secret, code);
    if (step === undefined || !secret) {
      await this.lockout.recordFailure(user);
      throw new AppException('SECOND_FACTOR_INVALID');
    }
    if (enrolment ? !(await this.enrolments.useStep(user.id, step)) : !(await this.enrolments.enrol(user.id, sealed, step))) {
      // A replay (or an enrolment raced by another challenge): counted like a wrong code.
      await this.lockout.recordFailure(user);
      throw new AppException(enrolment ? 'SECOND_FACTOR_CODE_USED' : 'SECOND_FACTOR_CHALLENGE_INVALID');
    }
    if (!(await this.challenges.consume(challengeToken))) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    await this.lockout.recordSuccess(user);
    return this.issuer.openSession(user.id, user.roles, userAgent);
  }

  /**
   * Enrols a user with a known secret (the bootstrap administrator's, from configuration); does
   * nothing when the user is already enrolled. True when enrolled by this call.
   */
  async enrolWith(userId: string, secret: Buffer): Promise<boolean> {
    return this.enrolments.enrol(userId, this.box.seal(userId, secret), 0);
  }

  /** Removes the enrolment: the user enrols again at the next sign-in. True when there was one. */
  reset(userId: string): Promise<boolean> {
    return this.enrolments.remove(userId);
  }
}
