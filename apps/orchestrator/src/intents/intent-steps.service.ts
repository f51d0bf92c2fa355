import { Inject, Injectable, Logger } from '@nestjs/common';
import { type IntentActor, type IntentStatus, type LedgerIntentView, TERMINAL_STATUSES } from '@mm/contracts';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import { LedgerClient } from '../ledger-client/ledger.client';
import { LimitsService } from '../limits/limits.service';
import { AuthConsentClient } from './auth-consent.client';
import type { ClientInfo } from './client-info';
import type { IntentStepView, IntentView, OtpSentView } from './dto/intent-views.dto';
import { counterpartyOf } from './intent-create.service';
import { PaymentIntentStore } from './payment-intent.store';
import type { PaymentIntentRecord } from './payment-intent.types';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payment-parties/payments-settings';
import { maskPhone } from './phone-prefixes';

const actorOf = (user: AuthUser, client: ClientInfo): IntentActor => ({
  id: user.userId,
  ...(client.ip ? { ip: client.ip } : {}),
  ...(client.userAgent ? { userAgent: client.userAgent } : {}),
});

/**
 * The steps between creation and confirm: send-otp, verify-otp, verify-pin, plus cancel and read
 * (docs/mobile-api.md "The steps"). Only the initiator reaches its intent (anyone else: 404, as
 * docs/mobile-api.md "Who starts what" says). The
 * intent's status lives in the ledger alone: it holds the state machine and refuses a move it does
 * not allow (400 INVALID_INTENT_TRANSITION). The record here only says whether the orchestrator's
 * own work is over (SETTLED, CLOSED), which refuses a step before a PIN is spent on it. The OTP
 * steps read the ledger's status first: an SMS sent, or a single-use code spent, for an intent that
 * cannot move would cost the customer; the PIN step (the hot path) lets the ledger refuse instead.
 *
 * A wrong PIN or OTP leaves the intent where it was and counts an attempt on it (auth counts its own,
 * for the lockout); the attempt that reaches the limit fails the intent, which releases the hold.
 */
@Injectable()
export class IntentStepsService {
  private readonly logger = new Logger(IntentStepsService.name);

  constructor(
    private readonly store: PaymentIntentStore,
    private readonly ledger: LedgerClient,
    private readonly auth: AuthConsentClient,
    private readonly limits: LimitsService,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  /** The intent as the ledger holds it now (the source of truth), with the counterparty for the screen. */
  async get(user: AuthUser, intentId: string): Promise<IntentView> {
    const record = await this.store.getForInitiator(intentId, user.userId);
    const ledger = await this.ledger.getIntent(intentId);
    return {
      intentId,
      type: record.type,
      status: ledger.status,
      requiresOtp: record.requiresOtp,
      amount: record.amount,
      fee: ledger.fee,
      currency: record.currency,
      counterparty: counterpartyOf(record),
      description: record.description,
      transactionId: ledger.transactionId,
      referenceId: ledger.referenceId,
      failureReason: ledger.failureReason,
      expiresAt: ledger.expiresAt,
      createdAt: ledger.createdAt,
      updatedAt: ledger.updatedAt,
    };
  }

  async cancel(user: AuthUser, intentId: string, client: ClientInfo): Promise<IntentStepView> {
    const record = await this.store.getForInitiator(intentId, user.userId);
    const view = await this.move(
      record,
      { toStatus: 'CANCELED', actor: actorOf(user, client), reason: 'canceled by the initiator' },
      'CANCELED',
    );
    // A confirm that held limit room and then stopped leaves a hold: give it back now.
    await this.limits.release(record.idempotencyKey);
    return { intentId, status: view.status };
  }

  /**
   * Sends (or sends again) the customer's code for a cash-out without a withdrawal QR. The code is
   * bound to this intent (auth refuses it for any other as a wrong code) and its SMS states the
   * amount and the agent, since the customer reads it out to the agent.
   *
   * Auth first, then the move: an intent reaches OTP_SENT only once auth took a code for it. Were
   * it moved first, a refused send (429 OTP_THROTTLED: a code for another intent went to this phone
   * moments ago) would leave it in OTP_SENT with no code of its own. Should the move fail after auth
   * sent the code, the intent stays CREATED and send-otp may be asked again (after the cooldown).
   */
  async sendOtp(user: AuthUser, intentId: string, client: ClientInfo): Promise<OtpSentView> {
    const record = await this.store.getForInitiator(intentId, user.userId);
    if (!record.requiresOtp) throw new AppException('OTP_NOT_REQUIRED');
    const { status } = await this.ledger.getIntent(intentId);
    this.assertOpen(record, status, ['CREATED', 'OTP_SENT']);
    const sent = await this.auth.sendOtp(
      record.payer.phone,
      {
        intentId,
        operation: 'CASH_OUT',
        amount: record.amount,
        currency: record.currency,
        ...(record.agent?.agentCode ? { agentCode: record.agent.agentCode } : {}),
      },
      client.ip,
    );
    if (status === 'CREATED') await this.move(record, { toStatus: 'OTP_SENT', actor: actorOf(user, client) }, 'OTP_SENT');
    return { intentId, status: 'OTP_SENT', sentTo: maskPhone(record.payer.phone), ...sent };
  }

  async verifyOtp(user: AuthUser, intentId: string, otp: string, client: ClientInfo): Promise<IntentStepView> {
    const record = await this.store.getForInitiator(intentId, user.userId);
    if (!record.requiresOtp) throw new AppException('OTP_NOT_REQUIRED');
    const { status } = await this.ledger.getIntent(intentId);
    // A retried verify-otp: the code was spent on the first one, which moved the intent.
    if (status === 'OTP_VERIFIED' || status === 'PIN_VERIFIED') return { intentId, status };
    this.assertOpen(record, status, ['OTP_SENT']);
    let proof: string;
    try {
      proof = (await this.auth.verifyOtp(record.payer.phone, otp, intentId, client.ip)).consentProof;
    } catch (error) {
      const code = (error as AppException).code;
      if (code === 'OTP_INVALID' || code === 'OTP_ATTEMPTS_EXHAUSTED') {
        await this.wrongCode(record, 'otp', user, client, code === 'OTP_ATTEMPTS_EXHAUSTED');
      }
      throw error;
    }
    const view = await this.move(record, { toStatus: 'OTP_VERIFIED', actor: actorOf(user, client), consentProof: proof }, 'OTP_VERIFIED');
    return { intentId, status: view.status };
  }

  async verifyPin(user: AuthUser, intentId: string, pin: string, client: ClientInfo): Promise<IntentStepView> {
    const record = await this.store.getForInitiator(intentId, user.userId);
    // The ledger decides whether the intent may move to PIN_VERIFIED (a retried verify-pin finds it
    // there already: `move` answers that); only what this record knows to be over is refused first.
    this.assertOpen(record);
    let proof: string;
    try {
      proof = (await this.auth.checkPin(user.accessToken, pin, intentId, client.ip)).consentProof;
    } catch (error) {
      if ((error as AppException).code === 'INVALID_PIN') await this.wrongCode(record, 'pin', user, client, false);
      throw error;
    }
    const view = await this.move(record, { toStatus: 'PIN_VERIFIED', actor: actorOf(user, client), consentProof: proof }, 'PIN_VERIFIED');
    return { intentId, status: view.status };
  }

  /**
   * Refuses early what the ledger would refuse anyway, before a PIN or an OTP is spent on it: an
   * operation whose work is over here, an intent past its lifetime and, when the ledger's `status`
   * was read, a step out of order.
   */
  private assertOpen(record: PaymentIntentRecord, status?: IntentStatus, expected: IntentStatus[] = []): void {
    if (record.stage === 'SETTLED' || record.stage === 'CLOSED') {
      throw new AppException(
        'INVALID_INTENT_TRANSITION',
        `The intent is ${record.stage === 'SETTLED' ? 'SUCCEEDED' : 'over'}; no step is left`,
      );
    }
    if (status && (TERMINAL_STATUSES.includes(status) || !expected.includes(status))) {
      throw new AppException('INVALID_INTENT_TRANSITION', `The intent is ${status}; this step needs ${expected.join(' or ')}`);
    }
    if (record.expiresAt && Date.parse(record.expiresAt) <= Date.now()) throw new AppException('INTENT_EXPIRED');
  }

  /** Counts a wrong code; the one that reaches the limit (ours or auth's) fails the intent. */
  private async wrongCode(record: PaymentIntentRecord, kind: 'pin' | 'otp', user: AuthUser, client: ClientInfo, exhausted: boolean) {
    const attempts = await this.store.countAttempt(record.id, kind);
    const max = kind === 'pin' ? this.settings.maxPinAttempts : this.settings.maxOtpAttempts;
    if (!exhausted && attempts < max) return;
    const reason = `too many wrong ${kind === 'pin' ? 'PINs' : 'OTPs'}`;
    await this.move(record, { toStatus: 'FAILED', actor: actorOf(user, client), reason }).catch((error: unknown) => {
      // Already final (expired, canceled): nothing left to release.
      this.logger.warn({ msg: 'could not fail the intent after too many wrong codes', intentId: record.ledgerIntentId, err: error });
    });
    throw new AppException('INTENT_ATTEMPTS_EXHAUSTED');
  }

  /**
   * One ledger move. With `reached`: when the ledger refuses because a twin request already made the
   * same move (a retried step), the state it reached is the answer.
   */
  private async move(
    record: PaymentIntentRecord,
    body: Parameters<LedgerClient['transition']>[1],
    reached?: IntentStatus,
  ): Promise<LedgerIntentView> {
    const intentId = record.ledgerIntentId!;
    try {
      return await this.ledger.transition(intentId, body);
    } catch (error) {
      if (!reached) throw error;
      const current = await this.ledger.getIntent(intentId).catch(() => undefined);
      if (current && (current.status === reached || statusAtOrAfter(current.status, reached))) return current;
      throw error;
    }
  }
}

const ORDER: IntentStatus[] = ['CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED', 'SUCCEEDED'];

function statusAtOrAfter(status: IntentStatus, target: IntentStatus): boolean {
  return ORDER.indexOf(status) >= ORDER.indexOf(target) && ORDER.indexOf(target) >= 0;
}
