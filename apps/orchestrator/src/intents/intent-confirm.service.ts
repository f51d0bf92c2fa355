import { Inject, Injectable, Logger } from '@nestjs/common';
import { type LedgerIntentView, type TransitionRequest } from '@mm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { type SqlWrite, runWritesTogether, transactionOpenedWith } from '@mm/platform';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import { LedgerClient } from '../ledger-client/ledger.client';
import { isRetryable } from '../ledger-client/ledger-retry';
import { balanceCap } from '../limits/limit-rules';
import { LimitsService } from '../limits/limits.service';
import type { LimitCheck } from '../limits/limits.types';
import type { ConfigVersion } from '../config-api/config-sections';
import { PricingService, type QuotedTerms, type RequoteDraft } from '../pricing/pricing.service';
import type { Charge } from '../pricing/pricing.types';
import { type RiskDraft, RiskService } from '../risk/risk.service';
import { undisclosedCap, withoutOthersBalance } from './intent-create.service';
import type { RiskDecision, RiskInput } from '../risk/risk.types';
import { ActiveConfigReader } from './active-config';
import type { ClientInfo } from './client-info';
import type { ConfirmedIntentView } from './dto/intent-views.dto';
import { executionContext } from './execution-context';
import { PAYMENT_NOTIFIER, type PaymentNotifierPort } from './payment-notifier.port';
import { PAYMENT_PARTIES, type PaymentParty, type PaymentPartiesPort } from '../payment-parties/payment-parties.port';
import { PaymentIntentStore, type PaymentIntentRow, initiatorsRecord } from './payment-intent.store';
import type { PartySnapshot, PaymentIntentRecord } from './payment-intent.types';
import { paymentSms } from './payment-sms';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payment-parties/payments-settings';
import { limitCheck, riskParty } from './risk-parties';

/**
 * `POST /api/v1/intents/:id/confirm` (docs/mobile-api.md "confirm"): risk judged again, fee re-decided (the quote binds
 * unless the grid got cheaper or the quote outlived its validity, see PricingService), limits
 * held, then the ledger's move to SUCCEEDED, once.
 *
 * Exactly once, whatever happens: the first confirm fixes the ledger request on the record and
 * sends it with `X-Idempotency-Key: confirm:<intentId>`; timeouts and 5xx are retried with that
 * key, and every later confirm of the intent (a client retry, ten at once, a retry after this
 * process died between the ledger's commit and its answer) sends the same request under the same
 * key, so the ledger executes it once and answers the same transaction to all of them. Each step
 * before it (risk decision, requote, limit hold) is itself decided once per operation.
 */
@Injectable()
export class IntentConfirmService {
  private readonly logger = new Logger(IntentConfirmService.name);

  constructor(
    private readonly db: DataSource,
    private readonly store: PaymentIntentStore,
    private readonly ledger: LedgerClient,
    private readonly limits: LimitsService,
    private readonly risk: RiskService,
    private readonly pricing: PricingService,
    @Inject(PAYMENT_PARTIES) private readonly parties: PaymentPartiesPort,
    @Inject(PAYMENT_NOTIFIER) private readonly notifier: PaymentNotifierPort,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly activeConfig: ActiveConfigReader,
  ) {}

  async confirm(user: AuthUser, intentId: string, client: ClientInfo): Promise<ConfirmedIntentView> {
    // The record, with the versions in force read by the same statement.
    const { rows, config: active } = await this.activeConfig.along<PaymentIntentRow>(this.store.forInitiatorRead(intentId, user.userId));
    let record = initiatorsRecord(rows);
    if (record.confirmResponse) return record.confirmResponse;
    // What this record knows is over is refused before any work, even with a request fixed (a hold
    // taken again for a closed record would only eat the payer's room).
    if (record.stage === 'CLOSED') throw new AppException('INVALID_INTENT_TRANSITION', 'The intent is over; confirm needs PIN_VERIFIED');
    if (!record.confirmRequest && record.expiresAt && Date.parse(record.expiresAt) <= Date.now()) throw new AppException('INTENT_EXPIRED');

    // The parties as they are now and the documents of the versions in force; before the first
    // confirm request is fixed, the intent's status too, from the ledger (the only place it lives):
    // the confirm-stage decisions must not be taken, and then reused, before the customer consented.
    const [[initiator, payer, payee], config, twin] = await Promise.all([
      this.freshParties(record),
      active(),
      record.confirmRequest ? undefined : this.assertPinVerified(record, user),
    ]);
    if (twin?.confirmResponse) return twin.confirmResponse;
    if (twin) record = twin;
    const check = limitCheck(record, { payer, payee, agentId: record.agent?.agentId ?? null });
    // Risk and the fee are judged at once, reading only (the quote's terms are on the record). Once
    // a request is fixed its fee is stored with it: nothing is priced again (a grid changed since
    // must not refuse a retry of what was decided).
    const [judged, requote] = await Promise.all([
      this.risk.decide(riskInput(record, client, initiator, payer, payee), config),
      record.confirmRequest ? undefined : this.pricing.prepareRequote(quotedTerms(record), config.pricing),
    ]);
    if (judged.reason) await this.refuseIfRejected(record, user, await this.risk.store(judged));
    // The credited customer's balance cap travels in the request: the ledger checks it under the
    // account's lock, where the balance and every credit executing are.
    const cap = balanceCap(config.limits.document, check);
    const inputs: DecisionInputs = { record, judged, requote, check, limits: config.limits, cap, user, client };
    const decided =
      (!judged.reason && requote ? await this.decideTogether(inputs, requote) : undefined) ?? (await this.decideInTransaction(inputs));
    if ('refusal' in decided) return this.refuseIfRejected(record, user, decided.refusal) as never;
    const { request, charge, decisionId } = decided;
    let view: LedgerIntentView;
    try {
      view = await this.ledger.transition(intentId, request, `confirm:${intentId}`);
    } catch (error) {
      // Refused for good (insufficient balance, expired, …): nothing moved, give the limit room back.
      // An unknown outcome (timeout after every retry) keeps the hold: the payment may have happened.
      if (!isRetryable(error)) await this.limits.release(record.idempotencyKey);
      // The balance may have fallen since the hold: its amounts are still the debited holder's alone.
      throw withoutOthersBalance(undisclosedCap(error), record);
    }
    // Tests only: the process really dies right after the ledger committed (a child-process orchestrator).
    if (this.settings.faultInjection && client.fault === 'kill-after-ledger-commit') process.kill(process.pid, 'SIGKILL');
    if (this.settings.faultInjection && client.fault === 'crash-after-ledger-commit') {
      // Tests: this process "dies" right after the ledger committed: no answer, nothing recorded here.
      client.crash?.();
      throw new AppException('SERVICE_UNAVAILABLE', 'Simulated crash after the ledger commit');
    }

    return this.settle(record, view, charge, decisionId, check, payer, payee);
  }

  /**
   * The usual first confirm (an accepting judgement, a grid unchanged since the quote, room under
   * the limits) decides in ONE statement inside the limit locks' transaction: the risk decision,
   * then the fee decision if that decision is an ACCEPT this statement stored, then the hold if the
   * fee was decided and the database finds room, then the ledger request if the hold was taken.
   * When any of them finds its row there already or no room, the transaction is rolled back and
   * the caller takes `decideInTransaction`, which handles those cases (a retry, a twin, a refusal
   * to word). Without a limit to hold, the statement needs no transaction and no lock: what it did
   * write then stays (an accepting decision, say), and `decideInTransaction` finds it as a retry's.
   */
  private async decideTogether(inputs: DecisionInputs, requote: RequoteDraft): Promise<Decided | undefined> {
    const { record, judged, check, limits, cap, user, client } = inputs;
    const charge = this.pricing.chargeWhateverTheTime(requote, new Date());
    if (!charge) return undefined;
    const hold = this.limits.planHold(check, limits, `EXISTS (SELECT 1 FROM charge)`);
    if (hold.kind === 'refused') return undefined;
    const request = confirmRequest(record, charge, user, client, cap);
    const writes = (holdWrite?: SqlWrite): Record<string, SqlWrite> => ({
      decision: this.risk.decisionWrite(judged),
      charge: this.pricing.requoteWrite(requote, `EXISTS (SELECT 1 FROM decision WHERE outcome = 'ACCEPT')`),
      ...(holdWrite ? { hold: holdWrite } : {}),
      request: this.store.confirmRequestWrite(record.id, request, `EXISTS (SELECT 1 FROM ${holdWrite ? 'hold' : 'charge'})`),
    });
    const fixed =
      hold.kind === 'none'
        ? await runWritesTogether(this.db, writes(), 'request')
        : // The locks open the transaction, in the same round trip as its BEGIN; the hold's write is
          // built after them, and its statement is sent after them: its time dates the hold (see planHold).
          await transactionOpenedWith(this.db, hold.lock, async (m) => {
            const rows = await runWritesTogether(m, writes(hold.write()), 'request');
            // Not all of it happened: undo whatever did, `decideInTransaction` decides.
            if (rows.length === 0) throw new NotTogether();
            return rows;
          }).catch((error: unknown) => {
            if (error instanceof NotTogether) return [];
            throw error;
          });
    return fixed.length > 0 ? { request, charge, decisionId: judged.id } : undefined;
  }

  /**
   * The risk decision, the fee decision, the limit hold and the ledger request, each decided once
   * per operation (a decision already stored stands): one transaction, one commit, all or nothing.
   * The limit locks are taken first, as `decideTogether` takes them: two confirms of one operation
   * (or of one customer) meeting on the decision or the quote row in opposite orders would deadlock.
   * A stored refusal is answered by the caller.
   */
  private async decideInTransaction(inputs: DecisionInputs): Promise<Decided | { refusal: RiskDecision }> {
    const { record, judged, requote, check, limits, cap, user, client } = inputs;
    const decide = async (m: EntityManager): Promise<Decided | { refusal: RiskDecision }> => {
      const decision = await this.risk.store(judged, m);
      // An earlier attempt's refusal stands (answered by the caller, outside the transaction).
      if (decision.outcome === 'REJECT') return { refusal: decision };
      // A request fixed already: its fee was stored in the same commit, and is read as it stands.
      const charge = requote ? await this.pricing.applyRequote(requote, m) : await this.pricing.requote(quotedTerms(record), undefined, m);
      const wanted = confirmRequest(record, charge, user, client, cap);
      await this.limits.holdAtConfirm(check, limits, { within: m });
      const request = await this.store.fixConfirmRequest(record.id, wanted, m);
      return { request, charge, decisionId: decision.decisionId };
    };
    const lock = this.limits.lockSql(check);
    return lock ? transactionOpenedWith(this.db, lock, decide) : this.db.transaction(decide);
  }

  /**
   * The ledger committed this intent's confirm but the success was never recorded here (this
   * process died in between and the client did not come back): the reconciler finishes it, with
   * the decisions the confirm already stored (fee, risk), so the outcome is the one it would have had.
   */
  async finishCommitted(record: PaymentIntentRecord, view: LedgerIntentView): Promise<ConfirmedIntentView> {
    const [, payer, payee] = await this.freshParties(record);
    const check = limitCheck(record, { payer, payee, agentId: record.agent?.agentId ?? null });
    const [charge, decision] = await Promise.all([
      this.pricing.requote(quotedTerms(record)),
      this.risk.find(record.idempotencyKey, 'CONFIRM'),
    ]);
    // A confirm request is only ever fixed after risk accepted the confirm.
    if (!decision) throw new Error(`intent ${record.ledgerIntentId} was committed without a confirm risk decision`);
    return this.settle(record, view, charge, decision.decisionId, check, payer, payee);
  }

  /**
   * After the ledger's success, in ONE statement, done once whoever gets there first: the record,
   * its two SMS in the outbox, the limit usage and the known counterparty. Each write is idempotent
   * on its own (the SMS by their dedupe keys, the usage and the counterparty by their keys), so a
   * twin confirm or the reconciler repeating them changes nothing; none depends on another's rows,
   * which is what lets them run as one statement (runWritesTogether).
   */
  private async settle(
    record: PaymentIntentRecord,
    view: LedgerIntentView,
    charge: Charge,
    decisionId: string,
    check: ReturnType<typeof limitCheck>,
    payer: PaymentParty,
    payee: PaymentParty,
  ): Promise<ConfirmedIntentView> {
    const response: ConfirmedIntentView = {
      intentId: view.intentId,
      status: 'SUCCEEDED',
      transactionId: view.transactionId!,
      referenceId: view.referenceId!,
      amount: view.amount,
      fees: view.fee,
      currency: record.currency,
      completedAt: view.updatedAt,
    };
    const commission = record.type === 'TRANSFER' ? 0 : charge.commission;
    const usage = this.limits.usageWrite(check);
    const settled = await runWritesTogether(
      this.db,
      {
        settled: this.store.succeededWrite(record.id, {
          transactionId: response.transactionId,
          referenceId: response.referenceId,
          chargedFee: view.fee,
          chargedCommission: commission,
          chargeRule: charge.rule,
          riskConfirmDecisionId: decisionId,
          completedAt: response.completedAt,
          response,
        }),
        sms: this.notifier.enqueueWrite(paymentSms(record, { referenceId: response.referenceId, fee: view.fee, commission })),
        counterparty: this.risk.successWrite({ operationId: record.idempotencyKey, payer: riskParty(payer), payee: riskParty(payee) }),
        ...(usage ? { usage } : {}),
      },
      'settled',
    );
    if (settled.length > 0) {
      this.logger.log({
        msg: 'payment succeeded',
        intentId: view.intentId,
        transactionId: response.transactionId,
        referenceId: response.referenceId,
        type: record.operationType,
        chargeRule: charge.rule,
      });
    }
    return response;
  }

  /**
   * Only a PIN_VERIFIED intent is confirmed (the ledger would refuse the move too, but only after
   * the decisions). Anything else may be a twin's doing: a confirm of the same intent that fixed its
   * request (or finished) since this one read the record. The record read again then answers: its
   * response, or the record with the request to send again.
   */
  private async assertPinVerified(record: PaymentIntentRecord, user: AuthUser): Promise<PaymentIntentRecord | undefined> {
    const { status } = await this.ledger.getIntent(record.ledgerIntentId!);
    if (status === 'PIN_VERIFIED') return undefined;
    const now = await this.store.getForInitiator(record.ledgerIntentId!, user.userId);
    if (now.confirmResponse || now.confirmRequest) return now;
    if (status === 'EXPIRED') throw new AppException('INTENT_EXPIRED');
    throw new AppException('INVALID_INTENT_TRANSITION', `The intent is ${status}; confirm needs PIN_VERIFIED`);
  }

  /** A refusal of the second risk judgement fails the intent (its hold goes back) and answers 403 RISK_REJECTED. */
  private async refuseIfRejected(record: PaymentIntentRecord, user: AuthUser, decision: RiskDecision): Promise<void> {
    if (decision.outcome !== 'REJECT') return;
    await this.ledger
      .transition(record.ledgerIntentId!, { toStatus: 'FAILED', actor: { id: user.userId }, reason: 'refused by risk controls' })
      .catch((error: unknown) =>
        this.logger.warn({ msg: 'could not fail a risk-refused intent', intentId: record.ledgerIntentId, err: error }),
      );
    // The refusal just judged: judging it again would redo the list and velocity reads.
    throw this.risk.rejection(decision);
  }

  /** Initiator, payer and payee as the customer module knows them now (statuses may have changed since creation). */
  private async freshParties(record: PaymentIntentRecord): Promise<[PaymentParty, PaymentParty, PaymentParty]> {
    const was: PartySnapshot[] = [record.payer, record.payee];
    const found = await this.parties.byUserIds(was.map((p) => p.userId));
    // Gone since creation (a closed account removed): judged as not active.
    const [payer, payee] = found.map((party, i) => party ?? { ...was[i], status: 'closed', accounts: {}, commissionAccounts: {} });
    // The initiator is the payer of a transfer, the agent (payer or payee) of a cash operation.
    const initiator = record.initiatorUserId === payee.userId ? payee : payer;
    return [initiator, payer, payee];
  }
}

/** What the confirm's decisions are taken on. */
interface DecisionInputs {
  record: PaymentIntentRecord;
  judged: RiskDraft;
  /** the fee decision to store; none when the record's request is fixed (its fee is stored already) */
  requote: RequoteDraft | undefined;
  check: LimitCheck;
  limits: ConfigVersion<'limits'>;
  /** the credited customer's balance cap, sent to the ledger */
  cap: number | undefined;
  user: AuthUser;
  client: ClientInfo;
}

/** The quote's id, terms and numbers as the record keeps them. */
function quotedTerms(record: PaymentIntentRecord): QuotedTerms {
  return {
    quoteId: record.quoteId,
    type: record.operationType,
    amount: record.amount,
    currency: record.currency,
    fee: record.quotedFee,
    commission: record.quotedCommission,
    gridVersion: record.gridVersion,
  };
}

/** What a confirm decided before calling the ledger. */
interface Decided {
  request: TransitionRequest;
  charge: Charge;
  decisionId: string;
}

/** `decideTogether`'s statement did not do all of its writes: its transaction is rolled back. */
class NotTogether extends Error {}

/**
 * The ledger request of the confirm. The fee and treasury accounts are the ledger's own (it books
 * the fee to FEE_COLLECTION and the commission from TREASURY of the currency); `cap` is the credited
 * customer's balance cap, checked by the ledger.
 */
function confirmRequest(
  record: PaymentIntentRecord,
  charge: Charge,
  user: AuthUser,
  client: ClientInfo,
  cap: number | undefined,
): TransitionRequest {
  return {
    toStatus: 'SUCCEEDED',
    actor: { id: user.userId, ...(client.ip ? { ip: client.ip } : {}), ...(client.userAgent ? { userAgent: client.userAgent } : {}) },
    executionContext: executionContext(
      record,
      { fee: charge.fee, commission: charge.commission, payeeBalanceCap: cap },
      record.initiatorUserId,
    ),
  };
}

/** The confirm as the second risk judgement sees it: the parties as they are now. */
function riskInput(
  record: PaymentIntentRecord,
  client: ClientInfo,
  initiator: PaymentParty,
  payer: PaymentParty,
  payee: PaymentParty,
): RiskInput {
  return {
    stage: 'CONFIRM',
    operationId: record.idempotencyKey,
    intentId: record.ledgerIntentId!,
    type: record.operationType,
    amount: record.amount,
    currency: record.currency,
    initiator: riskParty(initiator),
    payer: riskParty(payer),
    payee: riskParty(payee),
    deviceId: client.deviceId,
  };
}
