import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SecondFactorChallenge } from '@mm/contracts';
import { AppException, type ErrorCode } from '@mm/errors';
import { TokenIssuer } from '../sessions/token-issuer.service';
import type { TokenPair } from '../sessions/token-pair';
import type { LocalUser } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import { PinLockout } from '../users/pin-lockout.service';
import { OtpService } from '../otp/otp.service';
import { ChallengeStore } from './challenge.store';
import { SecondFactorStore } from './second-factor.store';
import { TOTP_ISSUER, base32Encode, matchTotp, otpauthUri } from '@mm/platform';
import { TotpSecretBox } from './totp-secret-box';

/**
 * The second step of a staff login (RFC 6238 TOTP). After the PIN, the login answers a challenge
 * instead of tokens: TOTP_REQUIRED, or TOTP_ENROLMENT_REQUIRED with a new secret when the user has
 * none yet. `complete` takes the challenge and a code and opens the session.
 *
 * - An enrolment needs proof of the staff member's phone, not only of the PIN (which an
 *   administrator typed when creating the account, or which a PIN reset by SMS replaced): the
 *   enrolment challenge sends a one-time code (OTP purpose STAFF_ENROLMENT) to the phone, and the
 *   enrolment is stored only with the first valid TOTP code and that SMS code together.
 *
 * - The challenge is short-lived, bound to its user and used up by the sign-in it opens.
 * - Wrong codes (TOTP or SMS) count on the account's PIN lockout counter (the same 5 / 10 thresholds), reserved
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
    private readonly otp: OtpService,
  ) {}

  /** The answer of a staff login whose PIN was right. */
  async challenge(user: LocalUser, pinCheckedAt: Date): Promise<SecondFactorChallenge> {
    if (await this.enrolments.find(user.id)) {
      const { token, expiresAt } = await this.challenges.create({ userId: user.id, pinCheckedAt: pinCheckedAt.toISOString() });
      return { secondFactor: 'TOTP_REQUIRED', challengeToken: token, expiresAt: expiresAt.toISOString() };
    }
    // The SMS first: a throttled phone (429 OTP_THROTTLED) gets no challenge it could not complete.
    await this.otp.sendStaffEnrolment(user.phone);
    const secret = this.box.newSecret();
    const pendingSecret = this.box.seal(user.id, secret).toString('base64');
    const { token, expiresAt } = await this.challenges.create({ userId: user.id, pendingSecret, pinCheckedAt: pinCheckedAt.toISOString() });
    const encoded = base32Encode(secret);
    return {
      secondFactor: 'TOTP_ENROLMENT_REQUIRED',
      challengeToken: token,
      expiresAt: expiresAt.toISOString(),
      secret: encoded,
      otpauthUri: otpauthUri(encoded, user.phone, TOTP_ISSUER),
    };
  }

  /**
   * `smsCode`: the code the enrolment challenge sent by SMS; required on an enrolment challenge
   * (400 VALIDATION_ERROR, field smsCode, REQUIRED, not counted: nothing was guessed), ignored otherwise.
   */
  async complete(challengeToken: string, code: string, smsCode: string | undefined, userAgent: string | undefined): Promise<TokenPair> {
    const challenge = await this.challenges.peek(challengeToken);
    if (!challenge) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    const user = await this.users.findById(challenge.userId);
    if (!user) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    if (user.status !== 'ACTIVE') throw new AppException('ACCOUNT_DISABLED');
    // A PIN replaced since the first step's check: refused before the code is looked at, so nothing
    // is used up or stored. (The session's own statement checks it again, atomically.)
    if (challenge.pinCheckedAt && user.pinSetAt && user.pinSetAt >= new Date(challenge.pinCheckedAt)) {
      throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    }
    const enrolment = await this.enrolments.find(user.id);
    // An enrolment made or reset since the challenge was issued: its secret is not the one to check.
    if (Boolean(enrolment) === Boolean(challenge.pendingSecret)) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    if (!enrolment && smsCode === undefined) throw smsCodeRequired();
    const sealed = enrolment ? enrolment.sealedSecret : Buffer.from(challenge.pendingSecret!, 'base64');
    const secret = this.box.open(user.id, sealed);
    const check = await this.lockout.reserve(user);
    // The check is ended exactly once: by the failure or success recorded below, or given back
    // when anything else stops it (an error of the database or of Redis).
    let ended = false;
    const fail = async (code: ErrorCode): Promise<never> => {
      ended = true;
      await this.lockout.recordFailure(check);
      throw new AppException(code);
    };
    try {
      const step = secret && matchTotp(secret, code);
      if (step === undefined || !secret) return await fail('SECOND_FACTOR_INVALID');
      // The TOTP code first: it costs the SMS code nothing when wrong. The SMS code is used up here.
      if (!enrolment) {
        const refused = await this.smsCodeRefusal(user, smsCode!);
        if (refused) return await fail(refused);
      }
      if (enrolment ? !(await this.enrolments.useStep(user.id, step)) : !(await this.enrolments.enrol(user.id, sealed, step))) {
        // A replay (or an enrolment raced by another challenge): counted like a wrong code.
        return await fail(enrolment ? 'SECOND_FACTOR_CODE_USED' : 'SECOND_FACTOR_CHALLENGE_INVALID');
      }
      if (!(await this.challenges.consume(challengeToken))) {
        // A right code on a challenge another request used up meanwhile: no failure, no success.
        ended = true;
        // The answer tells the code was right: on time, as any verdict.
        await this.lockout.release(check, { verdict: true });
        throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
      }
      ended = true;
      // False: the PIN was replaced while the code was checked (a reset ends the challenges too).
      if (!(await this.lockout.recordSuccess(check))) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    } catch (error) {
      if (!ended) await this.lockout.release(check).catch(() => undefined);
      throw error;
    }
    // A PIN replaced since the first step's check (a reset racing it) opens no session.
    const pinCheckedAt = challenge.pinCheckedAt ? new Date(challenge.pinCheckedAt) : undefined;
    const pair = await this.issuer.openSession(user.id, user.roles, userAgent, pinCheckedAt);
    if (!pair) throw new AppException('SECOND_FACTOR_CHALLENGE_INVALID');
    return pair;
  }

  /** Why the enrolment's SMS code is refused (it then counts like a wrong TOTP code), or undefined when it verifies. */
  private async smsCodeRefusal(user: LocalUser, smsCode: string): Promise<ErrorCode | undefined> {
    try {
      await this.otp.verifyStaffEnrolment(user.phone, smsCode);
      return undefined;
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      return error.code === 'OTP_INVALID' ? 'SECOND_FACTOR_SMS_CODE_INVALID' : 'SECOND_FACTOR_SMS_CODE_EXPIRED';
    }
  }

  /**
   * Enrols a user with a known secret (the bootstrap administrator's, from configuration, in the
   * transaction that creates it); does nothing when the user is already enrolled. True when
   * enrolled by this call.
   */
  async enrolWith(userId: string, secret: Buffer, manager?: EntityManager): Promise<boolean> {
    return this.enrolments.enrol(userId, this.box.seal(userId, secret), 0, manager);
  }

  /** Removes the enrolment: the user enrols again at the next sign-in. True when there was one. */
  reset(userId: string): Promise<boolean> {
    return this.enrolments.remove(userId);
  }
}

function smsCodeRequired(): AppException {
  const message = 'smsCode: the code sent by SMS to the phone is required to enrol';
  return new AppException('VALIDATION_ERROR', message, { errors: [{ field: 'smsCode', code: 'REQUIRED', message }] });
}
