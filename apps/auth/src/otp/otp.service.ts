import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Counter } from 'prom-client';
import type { ConsentProofAnswer, IntentOtpFacts } from '@mm/contracts';
import { AppException, type ErrorCode } from '@mm/errors';
import { MetricsService, currentContext } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import { maskPhone } from '../common/phone';
import { queryRows } from '@mm/platform';
import { AuthSecrets } from '../crypto/auth-secrets';
import { SmsSender } from '../notifications/sms-sender';
import { ConsentProofIssuer } from '../sessions/consent-proof.service';
import type { LocalUser } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import type { OtpPurpose, StoredOtpPurpose } from './otp-purpose';
import { intentOtpSms } from './intent-otp-sms';
import { staffEnrolmentSms } from './staff-enrolment-sms';
import { OtpThrottle } from './otp-throttle.service';

interface OtpRow {
  id: string;
  code_hmac: Buffer;
  attempts: number;
  max_attempts: number;
  expires_at: Date;
  consumed_at: Date | null;
  decoy: boolean;
}

/** What a successful verification yields: a proof the caller redeems later (e.g. the PIN reset). */
export interface OtpProof {
  verified: true;
  purpose: OtpPurpose;
  proof: string;
  proofExpiresAt: string;
}

const PROOF_PREFIX = 'otp1';

/**
 * One-time codes. 6 digits from the CSPRNG; only an HMAC of purpose, phone, subject and code is
 * stored; valid OTP_TTL_SEC; bound to phone and purpose, and an INTENT code also to its intent (the
 * subject): checked for another intent it is a wrong code. OTP_MAX_ATTEMPTS wrong tries discard
 * it; a new code, real or stand-in, replaces the previous one. Verification locks the live row, so
 * under any concurrency a code is consumed exactly once.
 */
@Injectable()
export class OtpService implements OnModuleDestroy {
  private readonly logger = new Logger(OtpService.name);
  private readonly verifications: Counter<'purpose' | 'outcome'>;
  private readonly smsSends: Counter<'purpose' | 'outcome'>;
  private readonly deliveries = new Set<Promise<void>>();

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly db: DataSource,
    private readonly secrets: AuthSecrets,
    private readonly throttle: OtpThrottle,
    private readonly sms: SmsSender,
    private readonly users: LocalUserStore,
    private readonly consent: ConsentProofIssuer,
    metrics: MetricsService,
  ) {
    this.verifications = metrics.counter('auth_otp_verify_total', 'OTP verifications by purpose and outcome', ['purpose', 'outcome']);
    this.smsSends = metrics.counter('auth_otp_sms_total', 'OTP SMS handed to the provider, by purpose and outcome (sent, failed)', [
      'purpose',
      'outcome',
    ]);
  }

  /**
   * The code-sending routes (send-otp, reset-pin/request). Who receives a code depends on its
   * purpose alone (`mayReceive`): a PIN_RESET code any account, whatever its status (a disabled
   * account may reset its PIN), a LOGIN or INTENT code an active account only. Whether or not the
   * phone gets one, the caller sees the same: the same throttles, charged alike; the
   * same 202 answer; and no answer or error sooner than OTP_SEND_MIN_MS after this began. And the
   * verify step that follows answers alike too: a phone that gets no SMS gets a stand-in (decoy)
   * code, stored like a real one, which counts wrong tries, runs out, expires and is replaced like
   * one, and never verifies (see `store`). For an account, the code is stored, then handed to the SMS provider without the
   * answer waiting for it (`deliver`): a slow or failing provider would otherwise show in the
   * response time or the status for accounts only. The floor covers the storing and,
   * usually, the provider's answer too. `intent` (purpose INTENT only): the intent the code is
   * bound to and the facts its SMS states.
   */
  async send(
    phone: string,
    purpose: OtpPurpose,
    clientIp: string,
    intent?: IntentOtpFacts,
  ): Promise<{ expiresInSec: number; resendAfterSec: number }> {
    const started = performance.now();
    try {
      // Charged before we know whether a code goes out, and never given back when its SMS fails:
      // a refund would be visible (the account's next send answered 202 where an unknown phone's
      // is refused with OTP_THROTTLED). What an undelivered code costs the customer is bounded: one
      // cooldown (OTP_RESEND_COOLDOWN_SEC) and one of the hourly sends.
      await this.throttle.acquire(phone, clientIp);
      const receives = mayReceive(purpose, await this.users.findByPhone(phone));
      const code = await this.store(phone, purpose, intent?.intentId, !receives);
      if (receives && code !== undefined) this.track(this.deliver(phone, purpose, code, intent));
      return { expiresInSec: this.config.OTP_TTL_SEC, resendAfterSec: this.config.OTP_RESEND_COOLDOWN_SEC };
    } finally {
      const left = this.config.OTP_SEND_MIN_MS - (performance.now() - started);
      if (left > 0) await sleep(left);
    }
  }

  /**
   * Stores a new code for (phone, purpose), bound to `subject` when given, discarding the live one;
   * only its HMAC is kept. A decoy is the stand-in for a phone that gets no SMS: never verifies. It
   * replaces a live code like any send, so a phone answers the same whatever it held before; the only
   * real code it can replace is one its holder may no longer use (a LOGIN or INTENT code of an
   * account disabled since: PIN_RESET codes go to accounts of any status).
   *
   * Two sends for the same phone and purpose at once (possible only with OTP_RESEND_COOLDOWN_SEC=0)
   * both find no live code to discard, and the second insert meets the first's row: it then stores
   * nothing and returns undefined, so no SMS goes out with a code that was never stored; the phone
   * keeps the code of the send that won, real or stand-in alike.
   */
  private async store(phone: string, purpose: StoredOtpPurpose, subject: string | undefined, decoy: boolean): Promise<string | undefined> {
    const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
    return this.db.transaction(async (m) => {
      await queryRows(
        m,
        `UPDATE auth.otp_codes SET discarded_at = now() WHERE phone = $1 AND purpose = $2 AND consumed_at IS NULL AND discarded_at IS NULL`,
        [phone, purpose],
      );
      const stored = await queryRows(
        m,
        `INSERT INTO auth.otp_codes (id, phone, purpose, subject_id, decoy, code_hmac, max_attempts, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
         ON CONFLICT (phone, purpose) WHERE consumed_at IS NULL AND discarded_at IS NULL DO NOTHING
         RETURNING id`,
        [
          randomUUID(),
          phone,
          purpose,
          subject?.toLowerCase() ?? null,
          decoy,
          this.codeHmac(phone, purpose, code, subject),
          this.config.OTP_MAX_ATTEMPTS,
          this.config.OTP_TTL_SEC,
        ],
      );
      return stored.length > 0 ? code : undefined;
    });
  }

  /**
   * Sends the code's SMS; never rejects. A failure is a warning (with the request's id) and a count
   * in auth_otp_sms_total, nothing the caller sees. The stored code stays valid: a provider that
   * timed out or answered an error may still have delivered the message, and a code nobody
   * received is harmless (HMAC only, OTP_MAX_ATTEMPTS tries, OTP_TTL_SEC, replaced by the next one).
   */
  private async deliver(phone: string, purpose: StoredOtpPurpose, code: string, intent?: IntentOtpFacts): Promise<void> {
    const requestId = currentContext()?.requestId;
    const minutes = Math.max(1, Math.round(this.config.OTP_TTL_SEC / 60));
    try {
      // An intent's code is read out to the agent, so its text says what it agrees to, not "never share".
      await this.sms.send(
        phone,
        intent
          ? intentOtpSms(code, intent, minutes)
          : purpose === 'STAFF_ENROLMENT'
            ? staffEnrolmentSms(code, minutes)
            : `Your verification code is ${code}. It expires in ${minutes} min. Never share it, not even with our staff.`,
      );
    } catch (error) {
      this.smsSends.inc({ purpose, outcome: 'failed' });
      this.logger.warn({
        msg: 'OTP SMS not delivered',
        requestId,
        phone: maskPhone(phone),
        purpose,
        err: error instanceof AppException ? { code: error.code, message: error.message } : { name: (error as Error)?.name },
      });
      return;
    }
    this.smsSends.inc({ purpose, outcome: 'sent' });
    this.logger.log({ msg: 'OTP sent', requestId, phone: maskPhone(phone), purpose });
  }

  /** Keeps a send that outlives its request until it settles, so a shutdown waits for it (onModuleDestroy). */
  private track(delivery: Promise<void>): void {
    this.deliveries.add(delivery);
    void delivery.finally(() => this.deliveries.delete(delivery));
  }

  /** The customers were told a code is on its way: let the provider calls in flight finish (the HTTP driver gives up after SMS_PROVIDER_TIMEOUT_MS). */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.deliveries]);
  }

  /**
   * The code of a staff second-factor enrolment (purpose STAFF_ENROLMENT), sent to the phone of the
   * staff member whose PIN was just checked: the proof that whoever enrols the authenticator holds
   * that phone. Unlike `send`, nothing here is hidden (the caller knows the PIN): no stand-ins and
   * no response-time floor; the SMS is handed to the provider before the answer, so a development
   * outbox holds it when the login answers. Throttled by the phone's hourly cap, shared with every
   * other code of the phone (429 OTP_THROTTLED); not by the resend cooldown, so a sign-in begun
   * again at once gets a new code, nor by the address's cap: each code needs the right PIN, and the
   * login's own rate limits bound how often that is tried. A new code replaces the live one.
   */
  async sendStaffEnrolment(phone: string): Promise<void> {
    await this.throttle.acquirePhoneHourly(phone);
    const code = await this.store(phone, 'STAFF_ENROLMENT', undefined, false);
    if (code !== undefined) await this.deliver(phone, 'STAFF_ENROLMENT', code);
  }

  /** Checks and uses up the staff member's live STAFF_ENROLMENT code (OTP_INVALID, OTP_EXPIRED or OTP_ATTEMPTS_EXHAUSTED otherwise). */
  async verifyStaffEnrolment(phone: string, code: string): Promise<void> {
    await this.consume(phone, 'STAFF_ENROLMENT', code);
  }

  /**
   * Strict single use: a second verification of the same code fails. `subject`: what the code must
   * have been sent for (an INTENT code's intent id); a code sent for another subject, or for one
   * when none is given, is a wrong code like any other.
   */
  async verify(phone: string, purpose: OtpPurpose, code: string, subject?: string): Promise<OtpProof> {
    const used = await this.consume(phone, purpose, code, subject);
    return this.proofFor(used.id, purpose, used.consumedAt);
  }

  /** The check of `verify` without the proof: the live code locked, compared, counted or used up. */
  private async consume(
    phone: string,
    purpose: StoredOtpPurpose,
    code: string,
    subject?: string,
  ): Promise<{ id: string; consumedAt: Date }> {
    const outcome = await this.db.transaction(async (m): Promise<{ error: ErrorCode } | { id: string; consumedAt: Date }> => {
      const rows = await queryRows<OtpRow>(
        m,
        `SELECT id, code_hmac, attempts, max_attempts, expires_at, consumed_at, decoy FROM auth.otp_codes
          WHERE phone = $1 AND purpose = $2 AND consumed_at IS NULL AND discarded_at IS NULL FOR UPDATE`,
        [phone, purpose],
      );
      const row = rows[0];
      if (!row) return { error: await this.whyNoLiveCode(m, phone, purpose) };
      if (row.expires_at.getTime() <= Date.now()) {
        await queryRows(m, `UPDATE auth.otp_codes SET discarded_at = now() WHERE id = $1`, [row.id]);
        return { error: 'OTP_EXPIRED' as const };
      }
      const expected = this.codeHmac(phone, purpose, code, subject);
      // A decoy takes the same comparison and the same path as a wrong code: it never verifies.
      if (!timingSafeEqual(expected, row.code_hmac) || row.decoy) {
        const exhausted = row.attempts + 1 >= row.max_attempts;
        await queryRows(
          m,
          `UPDATE auth.otp_codes SET attempts = attempts + 1, discarded_at = CASE WHEN $2 THEN now() ELSE NULL END WHERE id = $1`,
          [row.id, exhausted],
        );
        return { error: exhausted ? ('OTP_ATTEMPTS_EXHAUSTED' as const) : ('OTP_INVALID' as const) };
      }
      const consumed = await queryRows<{ consumed_at: Date }>(
        m,
        `UPDATE auth.otp_codes SET consumed_at = now() WHERE id = $1 RETURNING consumed_at`,
        [row.id],
      );
      return { id: row.id, consumedAt: consumed[0].consumed_at };
    });
    this.verifications.inc({ purpose, outcome: 'error' in outcome ? outcome.error : 'OK' });
    if ('error' in outcome) throw new AppException(outcome.error);
    return outcome;
  }

  /**
   * The OTP step of an intent: a strict, single-use verification of an INTENT code that also
   * yields the consent proof of the OTP step of that intent, for the user who owns the phone (the
   * ledger's OTP_VERIFIED needs it). No idempotent replay here: a retry checks the code again and
   * fails, and the orchestrator asks the customer for a new code.
   */
  async verifyForIntent(phone: string, purpose: OtpPurpose, code: string, intentId: string): Promise<OtpProof & ConsentProofAnswer> {
    // Refused before the code is looked at, so a wrong purpose does not burn the customer's code.
    if (purpose !== 'INTENT') throw new AppException('CONSENT_OTP_PURPOSE_INVALID');
    const user = await this.users.findByPhone(phone);
    // INTENT codes only ever go to active accounts. Any other phone answers OTP_EXPIRED without its
    // code (a stand-in, if stored) being looked at: unlike LOGIN and PIN_RESET, this answer is not
    // the one of a mistyped code, which is fine because only the orchestrator checks INTENT codes,
    // for intents of customers it knows.
    if (!user || user.status !== 'ACTIVE') throw new AppException('OTP_EXPIRED');
    const proof = await this.verify(phone, purpose, code, intentId);
    const consent = await this.consent.issue(user.id, intentId, 'OTP');
    this.logger.log({ msg: 'consent proof issued', step: 'OTP', userId: user.id, intentId });
    return { ...proof, ...consent };
  }

  /**
   * For the orchestrator's retries: the same (phone, purpose, code) again, after it was consumed
   * and while its proof is still valid, answers the same proof instead of failing. A right code
   * given again counts one check of the code's proof (`proof_checks`, shared with the redemptions
   * of the proof at the reset, same limit), never a wrong try: a code found at its fifth try is
   * replayed, redeemed and retried like one found at its first. A wrong code during the proof window
   * is a guess at the code: it counts on the code's wrong tries (`attempts`, the budget it had before
   * it was used, so the code's whole life allows OTP_MAX_ATTEMPTS wrong guesses) and answers
   * OTP_EXPIRED, as an unknown code does. Once either count reaches the limit, every check answers
   * OTP_ATTEMPTS_EXHAUSTED, even with the right code.
   */
  async verifyIdempotent(phone: string, purpose: OtpPurpose, code: string): Promise<OtpProof> {
    try {
      return await this.verify(phone, purpose, code);
    } catch (error) {
      if (!(error instanceof AppException) || error.code !== 'OTP_EXPIRED') throw error;
      const replay = await this.replayConsumed(phone, purpose, code);
      this.verifications.inc({ purpose, outcome: 'error' in replay ? `REPLAY_${replay.error}` : 'REPLAY_OK' });
      if ('error' in replay) throw new AppException(replay.error);
      return this.proofFor(replay.id, purpose, replay.consumedAt);
    }
  }

  /** One counted check of a code against the last code of (phone, purpose) consumed within the proof window. */
  private replayConsumed(
    phone: string,
    purpose: OtpPurpose,
    code: string,
  ): Promise<{ error: ErrorCode } | { id: string; consumedAt: Date }> {
    return this.db.transaction(async (m) => {
      const rows = await queryRows<
        Pick<OtpRow, 'id' | 'code_hmac' | 'attempts' | 'max_attempts' | 'consumed_at'> & { proof_checks: number }
      >(
        m,
        `SELECT id, code_hmac, attempts, max_attempts, consumed_at, proof_checks FROM auth.otp_codes
          WHERE phone = $1 AND purpose = $2 AND consumed_at > now() - make_interval(secs => $3)
          ORDER BY consumed_at DESC LIMIT 1 FOR UPDATE`,
        [phone, purpose, this.config.OTP_PROOF_TTL_SEC],
      );
      const row = rows[0];
      if (!row) return { error: 'OTP_EXPIRED' as const };
      // Either budget spent: no comparison at all, so the answer says nothing about the code.
      if (row.attempts >= row.max_attempts || row.proof_checks >= row.max_attempts) return { error: 'OTP_ATTEMPTS_EXHAUSTED' as const };
      const matches = timingSafeEqual(this.codeHmac(phone, purpose, code), row.code_hmac);
      // Counted in the same locked transaction as the answer, whatever the outcome.
      await queryRows(
        m,
        `UPDATE auth.otp_codes SET proof_checks = proof_checks + CASE WHEN $2 THEN 1 ELSE 0 END,
                                   attempts = attempts + CASE WHEN $2 THEN 0 ELSE 1 END
          WHERE id = $1`,
        [row.id, matches],
      );
      if (!matches) return { error: row.attempts + 1 >= row.max_attempts ? ('OTP_ATTEMPTS_EXHAUSTED' as const) : ('OTP_EXPIRED' as const) };
      return { id: row.id, consumedAt: row.consumed_at! };
    });
  }

  /**
   * Locks the OTP row behind a proof inside the caller's transaction and counts the check on it (a
   * proof that does not verify counts on the phone's last consumed code of that purpose), with the
   * code's own limit. These checks have their own count (`proof_checks`, which the right replays of
   * `verifyIdempotent` share), apart from the guesses at the code (`attempts`): a code that was right
   * at its fifth try, then replayed by the orchestrator, must still serve its reset. Never throws
   * for a bad proof: the caller must commit the count, then refuse, so the answer is `{ error }` or
   * the row with whether the proof was already redeemed (the caller decides whether that is a
   * replay).
   */
  async lockProof(
    m: EntityManager,
    proof: string,
    phone: string,
    purpose: OtpPurpose,
  ): Promise<{ error: 'RESET_TOKEN_INVALID' } | { otpId: string; alreadyUsed: boolean }> {
    const otpId = this.otpIdOf(proof);
    const rows = await queryRows<{ id: string; proof_checks: number; max_attempts: number; proof_used_at: Date | null }>(
      m,
      `SELECT id, proof_checks, max_attempts, proof_used_at FROM auth.otp_codes
        WHERE phone = $1 AND purpose = $2 AND consumed_at > now() - make_interval(secs => $3) AND ($4::uuid IS NULL OR id = $4::uuid)
        ORDER BY consumed_at DESC LIMIT 1 FOR UPDATE`,
      [phone, purpose, this.config.OTP_PROOF_TTL_SEC, otpId ?? null],
    );
    const row = rows[0];
    if (!row) return { error: 'RESET_TOKEN_INVALID' };
    if (row.proof_checks >= row.max_attempts) return { error: 'RESET_TOKEN_INVALID' };
    await queryRows(m, `UPDATE auth.otp_codes SET proof_checks = proof_checks + 1 WHERE id = $1`, [row.id]);
    if (!otpId) return { error: 'RESET_TOKEN_INVALID' };
    return { otpId: row.id, alreadyUsed: row.proof_used_at !== null };
  }

  async markProofUsed(m: EntityManager, otpId: string): Promise<void> {
    await queryRows(m, `UPDATE auth.otp_codes SET proof_used_at = now() WHERE id = $1 AND proof_used_at IS NULL`, [otpId]);
  }

  /** The OTP row id a proof names, or undefined when it is not a proof we issued. */
  private otpIdOf(proof: string): string | undefined {
    const [prefix, id, mac] = proof.split('.');
    if (prefix !== PROOF_PREFIX || !id || !mac || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const expected = this.proofMac(id);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return id;
  }

  private proofFor(otpId: string, purpose: OtpPurpose, consumedAt: Date): OtpProof {
    // Deterministic (a MAC of the code's id), so an idempotent replay returns the very same proof.
    return {
      verified: true,
      purpose,
      proof: `${PROOF_PREFIX}.${otpId}.${this.proofMac(otpId).toString('base64url')}`,
      proofExpiresAt: new Date(consumedAt.getTime() + this.config.OTP_PROOF_TTL_SEC * 1000).toISOString(),
    };
  }

  private proofMac(otpId: string): Buffer {
    return createHmac('sha256', this.secrets.otpKey).update(`proof:${otpId}`).digest();
  }

  /**
   * Without a subject, the form codes had before subjects existed (so live codes survived the
   * change). The subject (an intent's UUID) is lowercased here, so a code sent and checked with the
   * same id in other cases still matches.
   */
  private codeHmac(phone: string, purpose: StoredOtpPurpose, code: string, subject?: string): Buffer {
    const message = subject === undefined ? `${purpose}:${phone}:${code}` : `${purpose}:${phone}:${code}:${subject.toLowerCase()}`;
    return createHmac('sha256', this.secrets.otpKey).update(message).digest();
  }

  /** No live code: tell "used up by wrong tries" apart from "expired, used or never sent". */
  private async whyNoLiveCode(
    m: EntityManager,
    phone: string,
    purpose: StoredOtpPurpose,
  ): Promise<'OTP_ATTEMPTS_EXHAUSTED' | 'OTP_EXPIRED'> {
    const rows = await queryRows<{ attempts: number; max_attempts: number; consumed_at: Date | null; expires_at: Date }>(
      m,
      `SELECT attempts, max_attempts, consumed_at, expires_at FROM auth.otp_codes WHERE phone = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT 1`,
      [phone, purpose],
    );
    const last = rows[0];
    const exhausted = last && !last.consumed_at && last.attempts >= last.max_attempts && last.expires_at.getTime() > Date.now();
    return exhausted ? 'OTP_ATTEMPTS_EXHAUSTED' : 'OTP_EXPIRED';
  }
}

/**
 * Whether a phone's account gets a code of this purpose. Were PIN_RESET refused to a disabled
 * account, the stand-in stored instead would replace the code reset-pin/request sent it.
 */
function mayReceive(purpose: OtpPurpose, user: LocalUser | undefined): boolean {
  return purpose === 'PIN_RESET' ? user !== undefined : user?.status === 'ACTIVE';
}
