import { randomUUID } from 'node:crypto';
import type { CreateIntentRequest } from '@mm/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { currentContext, runWritesTogether } from '@mm/platform';
import type { AuthUser } from '../access/permissions';
import { LedgerClient } from '../ledger-client/ledger.client';
import { balanceCap } from '../limits/limit-rules';
import { undisclosedLimitRefusal } from '../limits/limit-refusal';
import { LimitsService } from '../limits/limits.service';
import { PricingService, type QuoteDraft } from '../pricing/pricing.service';
import type { Quote } from '../pricing/pricing.types';
import { type RiskDraft, RiskService } from '../risk/risk.service';
import { ActiveConfigReader } from './active-config';
import { requestHash } from '../common/canonical-hash';
import type { ClientInfo } from './client-info';
import type { CreateIntentDto } from './dto/create-intent.dto';
import type { CreatedIntentView } from './dto/intent-views.dto';
import { type IntentPlan, IntentPlanner } from './intent-planner';
import { PaymentIntentStore, type PaymentIntentRow, TwinWonError, toRecord } from './payment-intent.store';
import type { NewPaymentIntent, PaymentIntentRecord } from './payment-intent.types';
import { maskPhone } from './phone-prefixes';
import { limitCheck, riskParty } from './risk-parties';

export interface CreateResult {
  view: CreatedIntentView;
  /** true when this answer is the stored one of an earlier request with the same key */
  replayed: boolean;
}

/**
 * `POST /api/v1/intents`: validate, resolve, limits, risk, fee quote, then ONE ledger creation.
 *
 * The orchestrator's record is written before the ledger is called and holds the exact ledger
 * request: a create retried after a timeout or a crash (same idempotencyKey, same body) sends
 * the ledger the very same request, which the ledger answers with the intent it already made.
 * The same key with another body, or from another user, is 422 IDEMPOTENCY_KEY_CONFLICT.
 */
@Injectable()
export class IntentCreateService {
  private readonly logger = new Logger(IntentCreateService.name);

  constructor(
    private readonly planner: IntentPlanner,
    private readonly store: PaymentIntentStore,
    private readonly ledger: LedgerClient,
    private readonly limits: LimitsService,
    private readonly risk: RiskService,
    private readonly pricing: PricingService,
    private readonly activeConfig: ActiveConfigReader,
    private readonly db: DataSource,
  ) {}

  async create(user: AuthUser, dto: CreateIntentDto, client: ClientInfo): Promise<CreateResult> {
    const key = dto.idempotencyKey;
    if (!key) throw new AppException('IDEMPOTENCY_KEY_MISSING', 'idempotencyKey (a UUID v4) is required to create an intent');
    const hash = requestHash({ ...dto, initiator: user.userId });

    // The stored answer of this key (with the versions in force, in the same statement) and the
    // parties are read at once. A replay answers what the first request got, whatever the plan
    // would say today.
    const [found, planned] = await Promise.allSettled([
      this.activeConfig.along<PaymentIntentRow>(this.store.byKeyRead(key)),
      this.planner.plan(user, dto),
    ]);
    const {
      rows: [existing],
      config: active,
    } = settled(found);
    if (existing) return this.replay(toRecord(existing), user, hash);
    const plan = settled(planned);
    const config = await active();
    const parties = { payer: plan.payerParty, payee: plan.payeeParty, agentId: plan.agent?.agentId ?? null };
    const operation = {
      idempotencyKey: key,
      operationType: plan.operationType,
      amount: plan.amount,
      currency: plan.currency,
      initiatorUserId: user.userId,
    };
    // Limits, risk and the fee are independent: judged at once (reads only), and the refusals
    // reported in a fixed order (limits, then risk, then pricing). The credited customer's balance
    // cap is the ledger's check (sent with the creation below): the create asks each service once.
    const check = limitCheck(operation, parties);
    const [limits, risk, priced] = await Promise.allSettled([
      this.limits.checkAtCreate(check, config.limits),
      this.risk.decide(
        {
          stage: 'CREATE',
          operationId: key,
          type: plan.operationType,
          amount: plan.amount,
          currency: plan.currency,
          initiator: riskParty(plan.initiator),
          payer: riskParty(plan.payerParty),
          payee: riskParty(plan.payeeParty),
          deviceId: client.deviceId,
        },
        config,
      ),
      this.pricing.price({ type: plan.operationType, amount: plan.amount, currency: plan.currency, operationId: key }, config.pricing),
    ]);
    const { limitsVersion } = settled(limits);
    const judged = settled(risk);
    if (judged.reason) {
      // A refusal is stored (it is the record of why) and answered 403, writing nothing else; unless
      // an earlier attempt at the same input was accepted, which stands.
      const stored = await this.risk.store(judged);
      if (stored.outcome === 'REJECT') throw this.risk.rejection(stored);
    }
    const priceDraft = settled(priced);
    if (!Number.isSafeInteger(plan.amount + priceDraft.pricing.fee)) {
      throw new AppException('AMOUNT_ABOVE_MAXIMUM', 'Amount plus fee is beyond what can be represented exactly');
    }

    const correlationId = currentContext()?.correlationId ?? null;
    const id = randomUUID();
    const record = (quote: Pick<Quote, 'quoteId' | 'fee' | 'commission' | 'gridVersion'>, decisionId: string): NewPaymentIntent => ({
      id,
      idempotencyKey: key,
      requestHash: hash,
      initiatorUserId: user.userId,
      initiatorRole: user.role,
      type: plan.type,
      operationType: plan.operationType,
      amount: plan.amount,
      currency: plan.currency,
      quoteId: quote.quoteId,
      quotedFee: quote.fee,
      quotedCommission: quote.commission,
      gridVersion: quote.gridVersion,
      limitsVersion,
      riskCreateDecisionId: decisionId,
      payer: plan.payer,
      payee: plan.payee,
      agent: plan.agent,
      sourceAccountId: plan.payer.accountId,
      destinationAccountId: plan.payee.accountId,
      requiresOtp: plan.requiresOtp,
      qrToken: plan.ledgerQrToken,
      withdrawalQrId: plan.withdrawalQrId,
      description: plan.description,
      ledgerRequest: this.ledgerRequest(user, key, plan, quote.fee, balanceCap(config.limits.document, check), client, {
        operationType: plan.operationType,
        quoteId: quote.quoteId,
        gridVersion: quote.gridVersion,
        riskDecisionId: decisionId,
        correlationId,
      }),
      correlationId,
    });
    // The usual first attempt (an accepted judgement, no withdrawal QR to consume) writes its
    // decision, quote and record as ONE statement (one round trip, one commit instead of five).
    const together = !judged.reason && plan.withdrawalQrId === null ? await this.insertTogether(judged, priceDraft, record) : undefined;
    if (together) return { view: await this.callLedger(together), replayed: false };
    // Anything else (a retry or a twin finding its quote, decision or record already there, a
    // withdrawal QR): the quote, the risk decision and the record in one transaction, one commit. A
    // decision stored first by an earlier attempt stands (a refusal there refuses this one, writing
    // nothing).
    const inserted = await this.db
      .transaction(async (m) => {
        const quote = await this.pricing.storeQuote(priceDraft, m);
        const decision = await this.risk.store(judged, m);
        if (decision.outcome === 'REJECT') throw this.risk.rejection(decision);
        return this.store.insertPending(record(quote, decision.decisionId), m);
      })
      .catch((error: unknown) => {
        if (error instanceof TwinWonError) return undefined;
        throw error;
      });
    // A concurrent request with the same key wrote first: answer as its replay.
    if (!inserted) return this.replay((await this.store.findByKey(key))!, user, hash);
    return { view: await this.callLedger(inserted), replayed: false };
  }

  /**
   * The risk decision, the quote and the record of a first attempt as ONE statement (data-modifying
   * CTEs, see runWritesTogether): the quote is stored only when this statement stored an accepting
   * decision, and the record only when it stored both; a decision, quote or record of this
   * operation already there is kept (each insert's ON CONFLICT / NOT EXISTS) and then answers
   * undefined, and the caller takes the transactional path, which handles those cases. What this
   * statement may leave without a record is at most its accepting decision (the quote of the
   * operation was there already): the decision the transactional path would store for the same
   * input, which it then finds (`RiskService.store` keeps the first decision of an input). A twin
   * with the same key but other terms also leaves its accepting decision (the transaction then
   * refuses it 422 IDEMPOTENCY_KEY_CONFLICT, where it used to roll the decision back): the payment
   * story lists it among the operation's decisions; nothing reads decisions for money or limits.
   */
  private async insertTogether(
    judged: RiskDraft,
    priceDraft: QuoteDraft,
    record: (quote: Pick<Quote, 'quoteId' | 'fee' | 'commission' | 'gridVersion'>, decisionId: string) => NewPaymentIntent,
  ): Promise<PaymentIntentRecord | undefined> {
    const { pricing } = priceDraft;
    const intent = record(
      { quoteId: priceDraft.id, fee: pricing.fee, commission: pricing.commission, gridVersion: pricing.gridVersion },
      judged.id,
    );
    const [row] = await runWritesTogether<PaymentIntentRow>(
      this.db,
      {
        decision: this.risk.decisionWrite(judged),
        quote: this.pricing.quoteWrite(priceDraft, `EXISTS (SELECT 1 FROM decision WHERE outcome = 'ACCEPT')`),
        record: this.store.pendingWrite(
          intent,
          `EXISTS (SELECT 1 FROM quote) AND EXISTS (SELECT 1 FROM decision WHERE outcome = 'ACCEPT')`,
        ),
      },
      'record',
    );
    return row && toRecord(row);
  }

  private async replay(record: PaymentIntentRecord, user: AuthUser, hash: string): Promise<CreateResult> {
    if (record.initiatorUserId !== user.userId || record.requestHash !== hash) {
      throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotencyKey was already used for another request');
    }
    if (record.createResponse) return { view: record.createResponse, replayed: true };
    // Closed without a ledger intent (the code expired before the ledger created one): for good.
    if (record.withdrawalQrId && record.stage === 'CLOSED') {
      throw new AppException('WITHDRAWAL_QR_INVALID', 'The withdrawal code of this request has expired');
    }
    if (record.withdrawalQrId && !record.ledgerRequest.createBy) {
      // A withdrawal-code cash-out stored before ledger requests carried the code's expiry
      // (`createBy`): the ledger cannot be asked after the code's lifetime without risking a new
      // no-OTP creation, so such a record is closed instead (the agent starts again with a new code
      // or with an OTP). Records written since go to the ledger, which decides (see `callLedger`).
      const code = await this.store.qrStillFresh(record.id);
      if (code.state === 'ANSWERED') return { view: code.response, replayed: true };
      if (code.state === 'CLOSED') throw new AppException('WITHDRAWAL_QR_INVALID', 'The withdrawal code of this request has expired');
    }
    // The first request never heard back from the ledger: ask again, with the very same request.
    return { view: await this.callLedger(record), replayed: true };
  }

  /**
   * Sends the record's stored request to the ledger and records the intent it answers.
   *
   * A refusal (insufficient balance, QR locked, …) leaves the record PENDING: the same request may
   * be sent again later and the ledger decides again; another body under this key stays a conflict.
   * A withdrawal-code cash-out carries the code's expiry as the ledger's deadline for creating
   * (`createBy`): after it, the ledger still answers the intent it created in time (its answer to
   * the first request was lost: the customer consented while the code was valid, so it is recorded
   * and answered 201), and otherwise refuses for good with INTENT_CREATE_DEADLINE_PASSED, holding
   * nothing; the record is then closed and the answer is 400 WITHDRAWAL_QR_INVALID.
   */
  private async callLedger(record: PaymentIntentRecord): Promise<CreatedIntentView> {
    const created = await this.ledger.createIntent(record.ledgerRequest).catch(async (error: unknown) => {
      if (error instanceof AppException && error.code === 'INTENT_CREATE_DEADLINE_PASSED' && record.withdrawalQrId) {
        await this.store.closeUncreated(record.id, 'withdrawal code expired before the ledger created the intent');
        throw new AppException('WITHDRAWAL_QR_INVALID', 'The withdrawal code of this request has expired');
      }
      throw withoutOthersBalance(undisclosedCap(error), record);
    });
    const view = createdView(record, created.intentId, created.expiresAt);
    const recorded = await this.store.markCreated(record.id, created.intentId, created.expiresAt, view);
    if (recorded.ledgerIntentId !== created.intentId) await this.unrecorded(recorded, created.intentId);
    this.logger.log({
      msg: 'intent created',
      intentId: created.intentId,
      type: record.type,
      operationType: record.operationType,
      initiatorId: record.initiatorUserId,
    });
    return view;
  }

  /**
   * The ledger created an intent for a record that was closed meanwhile (only a record stored
   * without `createBy` is closed without asking the ledger: a replay after the code expired racing
   * the first request still in flight). Nothing links that intent to the orchestrator, so every
   * later step would answer 404: it is canceled on the ledger (its hold goes back; if the cancel
   * fails the ledger's own expiry releases it) and the request is refused as the closed record's
   * replays are.
   */
  private async unrecorded(record: PaymentIntentRecord, ledgerIntentId: string): Promise<never> {
    this.logger.warn({ msg: 'ledger intent of a closed record: canceling it', recordId: record.id, ledgerIntentId, stage: record.stage });
    await this.ledger
      .transition(ledgerIntentId, {
        toStatus: 'CANCELED',
        actor: record.ledgerRequest.actor,
        reason: 'the operation was closed before the intent could be recorded',
      })
      .catch((error: unknown) =>
        this.logger.warn({ msg: 'cancel of an unrecorded ledger intent failed', ledgerIntentId, error: String(error) }),
      );
    if (record.withdrawalQrId) throw new AppException('WITHDRAWAL_QR_INVALID', 'The withdrawal code of this request has expired');
    throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotencyKey belongs to an operation that was closed');
  }

  private ledgerRequest(
    user: AuthUser,
    key: string,
    plan: IntentPlan,
    fee: number,
    payeeBalanceCap: number | undefined,
    client: ClientInfo,
    metadata: Record<string, unknown>,
  ): CreateIntentRequest {
    return {
      idempotencyKey: key,
      type: plan.type,
      sourceAccountId: plan.payer.accountId,
      destinationAccountId: plan.payee.accountId,
      amount: plan.amount,
      currency: plan.currency,
      fee,
      requiresOtp: plan.requiresOtp,
      ...(plan.requiresOtp ? { otpUserId: plan.payer.userId } : {}),
      ...(plan.ledgerQrToken ? { qrToken: plan.ledgerQrToken } : {}),
      ...(plan.description ? { description: plan.description } : {}),
      ...(plan.agent ? { agentId: plan.agent.agentId } : {}),
      ...(plan.ledgerExpiresAt ? { expiresAt: plan.ledgerExpiresAt } : {}),
      ...(plan.createBy ? { createBy: plan.createBy } : {}),
      ...(payeeBalanceCap !== undefined ? { payeeBalanceCap } : {}),
      actor: { id: user.userId, ...(client.ip ? { ip: client.ip } : {}), ...(client.userAgent ? { userAgent: client.userAgent } : {}) },
      metadata,
    };
  }
}

/**
 * The ledger's INSUFFICIENT_BALANCE names the available and required amounts of the debited
 * account. Its holder may read them; anyone else (the agent of a cash-out by phone) gets the same
 * code and status with a message that states no amount, so a refused request cannot probe another
 * person's balance.
 */
export function withoutOthersBalance(error: unknown, record: Pick<PaymentIntentRecord, 'initiatorUserId' | 'payer'>): unknown {
  if (!(error instanceof AppException) || error.code !== 'INSUFFICIENT_BALANCE') return error;
  if (record.payer.userId === record.initiatorUserId) return error;
  return new AppException('INSUFFICIENT_BALANCE', "The customer's available balance does not cover this operation", {
    status: error.status,
  });
}

/**
 * The ledger's balance-cap refusal states no amount here: the room left derives from the credited
 * customer's balance, and that customer never initiates what it caps (the sender of a transfer or
 * the agent of a cash-in does).
 */
export function undisclosedCap(error: unknown): unknown {
  return error instanceof AppException && error.code === 'LIMIT_BALANCE_CAP_EXCEEDED'
    ? undisclosedLimitRefusal('LIMIT_BALANCE_CAP_EXCEEDED')
    : error;
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** The other party, seen from the initiator: the recipient of a transfer or cash-in, the customer of a cash-out. */
export function counterpartyOf(record: Pick<PaymentIntentRecord, 'type' | 'payer' | 'payee'>) {
  const party = record.type === 'CASH_OUT' ? record.payer : record.payee;
  return { displayName: party.displayName, phone: maskPhone(party.phone) };
}

function createdView(record: PaymentIntentRecord, intentId: string, expiresAt: string): CreatedIntentView {
  return {
    intentId,
    status: 'CREATED',
    requiresOtp: record.requiresOtp,
    expiresAt,
    type: record.type,
    amount: record.amount,
    fee: record.quotedFee,
    total: record.amount + record.quotedFee,
    currency: record.currency,
    counterparty: counterpartyOf(record),
  };
}
