import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { LedgerOperationStory } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { type PaymentIntentRow, toRecord } from '../../intents/payment-intent.store';
import type { PaymentIntentRecord } from '../../intents/payment-intent.types';
import { MerchantQrClient, PARTNER_QR } from '../../intents/merchant-qr.client';
import { WebhookOperationsService } from '../webhooks/webhook-operations.service';
import type {
  PaymentStoryView,
  RiskDecisionView,
  SmsView,
  StoryCommissionPart,
  StoryFeePart,
  StoryLedgerPart,
  StoryPartnerOrderPart,
  StoryPaymentPart,
  StoryRiskPart,
  StorySmsPart,
  StoryWebhooksPart,
} from './dto/payment-story.views';
import { OperatorSearchClient } from './operator-search.client';
import { staffParty, toView } from './transaction-search.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The code a part that could not be read shows: the upstream's own stable code, else STORY_PART_UNAVAILABLE. */
function codeOf(error: unknown): string {
  return error instanceof AppException ? error.code : 'STORY_PART_UNAVAILABLE';
}

/**
 * The story of one payment on one page, each part read where its data lives: the operation, its
 * intent's journal and its entries (ledger), the payment record, risk decisions, fee quote, SMS
 * (orchestrator), the partner order (partners). A part that cannot be read carries its error code
 * in `unavailable` and the page is still answered; only a payment that nobody knows is a 404.
 */
@Injectable()
export class PaymentStoryService {
  private readonly logger = new Logger(PaymentStoryService.name);

  constructor(
    private readonly db: DataSource,
    private readonly ledger: OperatorSearchClient,
    private readonly qr: MerchantQrClient,
    private readonly webhookLog: WebhookOperationsService,
  ) {}

  /** `key`: a transaction reference, a ledger intent id or the public intent id. */
  async story(key: string): Promise<PaymentStoryView> {
    const payment = await this.payment(key);
    const ledgerKey = payment?.referenceId ?? payment?.ledgerIntentId ?? key;
    let story: LedgerOperationStory | undefined;
    let ledgerError: string | null = null;
    try {
      story = await this.ledger.story(ledgerKey);
    } catch (error) {
      if (!payment && error instanceof AppException && error.code === 'TRANSACTION_NOT_FOUND') throw error;
      ledgerError = this.failed('ledger', error);
    }
    // Still a payment that was never written to the ledger (refused or crashed before it): the orchestrator's parts tell it.
    if (ledgerError === 'TRANSACTION_NOT_FOUND') ledgerError = null;
    const [risk, fee, sms, partnerOrder] = await Promise.all([
      this.part('risk', () => this.risk(payment), { decisions: null }),
      this.part('fee', () => this.fee(payment), { quote: null, charged: null }),
      this.part('sms', () => this.sms(payment), { messages: null }),
      this.part('partnerOrder', () => this.partnerOrder(payment, story), { order: null }),
    ]);
    return {
      key,
      ledger: this.ledgerPart(story, payment, ledgerError),
      payment: this.paymentPart(payment),
      risk,
      fee,
      commission: this.commission(payment, story, fee),
      sms,
      partnerOrder,
      webhooks: await this.webhooks(partnerOrder),
    };
  }

  /** The order's webhook events and their deliveries (after the order: its id names them). */
  private async webhooks(partnerOrder: StoryPartnerOrderPart): Promise<StoryWebhooksPart> {
    if (partnerOrder.unavailable) return { unavailable: partnerOrder.unavailable, events: null };
    if (!partnerOrder.order) return { unavailable: null, events: [] };
    const orderId = partnerOrder.order.orderId;
    return this.part<StoryWebhooksPart>('webhooks', async () => ({ events: (await this.webhookLog.eventsForOrder(orderId)).events }), {
      events: null,
    });
  }

  private async payment(key: string): Promise<PaymentIntentRecord | undefined> {
    const rows = await queryRows<PaymentIntentRow>(
      this.db,
      UUID.test(key)
        ? `SELECT * FROM orchestrator.payment_intents WHERE ledger_intent_id = $1::uuid OR id = $1::uuid`
        : `SELECT * FROM orchestrator.payment_intents WHERE reference_id = $1`,
      [UUID.test(key) ? key.toLowerCase() : key],
    );
    return rows[0] && toRecord(rows[0]);
  }

  private ledgerPart(
    story: LedgerOperationStory | undefined,
    payment: PaymentIntentRecord | undefined,
    unavailable: string | null,
  ): StoryLedgerPart {
    if (!story)
      return { unavailable, operation: null, events: null, entries: null, debits: null, credits: null, balanced: null, reason: null };
    const entries = story.entries.map((e) => ({
      entryId: e.entryId,
      transactionId: e.transactionId,
      accountId: e.accountId,
      accountType: e.accountType,
      holder: e.holder,
      direction: e.direction,
      amount: e.amount,
      currency: e.currency,
      counterpartyEntryId: e.counterpartyEntryId,
      createdAt: e.createdAt,
    }));
    const total = (d: 'DEBIT' | 'CREDIT') => entries.filter((e) => e.direction === d).reduce((sum, e) => sum + e.amount, 0);
    const perTransaction = new Map<string, number>();
    for (const e of entries)
      perTransaction.set(e.transactionId, (perTransaction.get(e.transactionId) ?? 0) + (e.direction === 'DEBIT' ? e.amount : -e.amount));
    return {
      unavailable: null,
      operation: toView(story.operation, payment),
      events: story.events,
      entries,
      debits: total('DEBIT'),
      credits: total('CREDIT'),
      balanced: [...perTransaction.values()].every((net) => net === 0),
      reason: story.reason,
    };
  }

  private paymentPart(p: PaymentIntentRecord | undefined): StoryPaymentPart {
    return {
      unavailable: null,
      publicIntentId: p?.id ?? null,
      operationType: p?.operationType ?? null,
      stage: p?.stage ?? null,
      payer: staffParty(p?.payer),
      payee: staffParty(p?.payee),
      agentCode: p?.agent?.agentCode ?? null,
      initiatorUserId: p?.initiatorUserId ?? null,
      description: p?.description ?? null,
      failureReason: p?.failureReason ?? null,
      pinAttempts: p?.pinAttempts ?? null,
      correlationId: p?.correlationId ?? null,
      createdAt: p?.createdAt ?? null,
    };
  }

  private async risk(p: PaymentIntentRecord | undefined): Promise<Omit<StoryRiskPart, 'unavailable'>> {
    if (!p) return { decisions: [] };
    const rows = await queryRows<{
      id: string;
      stage: string;
      outcome: string;
      reason_code: string | null;
      rules_version: number;
      signals: Array<{ rule: string; outcome: string; detail?: Record<string, unknown> }>;
      created_at: Date;
    }>(
      this.db,
      `SELECT id, stage, outcome, reason_code, rules_version, signals, created_at FROM orchestrator.risk_decisions
        WHERE operation_id = $1 ORDER BY created_at, stage DESC`,
      [p.idempotencyKey],
    );
    return {
      decisions: rows.map((r): RiskDecisionView => ({
        decisionId: r.id,
        stage: r.stage,
        outcome: r.outcome,
        reasonCode: r.reason_code,
        rulesVersion: r.rules_version,
        signals: r.signals.map((s) => ({ rule: s.rule, outcome: s.outcome, detail: s.detail ?? null })),
        createdAt: r.created_at.toISOString(),
      })),
    };
  }

  private async fee(p: PaymentIntentRecord | undefined): Promise<Omit<StoryFeePart, 'unavailable'>> {
    if (!p) return { quote: null, charged: null };
    const [q] = await queryRows<{
      id: string;
      fee: string;
      commission: string;
      grid_version: number;
      created_at: Date;
      expires_at: Date;
      charged_fee: string | null;
      charged_commission: string | null;
      charged_grid_version: number | null;
      charge_rule: string | null;
      requoted_at: Date | null;
    }>(this.db, `SELECT * FROM orchestrator.fee_quotes WHERE id = $1`, [p.quoteId]);
    if (!q) return { quote: null, charged: null };
    return {
      quote: {
        quoteId: q.id,
        fee: Number(q.fee),
        commission: Number(q.commission),
        gridVersion: q.grid_version,
        quotedAt: q.created_at.toISOString(),
        expiresAt: q.expires_at.toISOString(),
      },
      charged:
        q.requoted_at && q.charged_fee !== null
          ? {
              fee: Number(q.charged_fee),
              commission: Number(q.charged_commission),
              gridVersion: q.charged_grid_version!,
              rule: q.charge_rule!,
              settledAt: q.requoted_at.toISOString(),
            }
          : null,
    };
  }

  private commission(p: PaymentIntentRecord | undefined, story: LedgerOperationStory | undefined, fee: StoryFeePart): StoryCommissionPart {
    const agent = p?.agent;
    if (!agent) return { unavailable: null, agentCode: null, amount: null, accountId: null, credited: null };
    const credited = story
      ? story.entries
          .filter((e) => e.accountId === agent.commissionAccountId && e.direction === 'CREDIT')
          .reduce((sum, e) => sum + e.amount, 0)
      : null;
    return {
      unavailable: null,
      agentCode: agent.agentCode,
      amount: p.chargedCommission ?? fee.charged?.commission ?? fee.quote?.commission ?? p.quotedCommission,
      accountId: agent.commissionAccountId,
      credited,
    };
  }

  private async sms(p: PaymentIntentRecord | undefined): Promise<Omit<StorySmsPart, 'unavailable'>> {
    if (!p) return { messages: [] };
    // the payment's SMS are keyed by the intent (intents/payment-sms.ts)
    const key = p.ledgerIntentId ?? p.id;
    const rows = await queryRows<{
      to_phone: string;
      body: string;
      status: string;
      attempts: number;
      last_error: string | null;
      created_at: Date;
      sent_at: Date | null;
    }>(
      this.db,
      `SELECT to_phone, body, status, attempts, last_error, created_at, sent_at FROM orchestrator.sms_outbox
        WHERE dedupe_key = ANY($1::text[]) ORDER BY dedupe_key DESC`,
      [[`payment:${key}:payer`, `payment:${key}:payee`]],
    );
    return {
      messages: rows.map((r): SmsView => ({
        to: r.to_phone,
        text: r.body,
        status: r.status,
        attempts: r.attempts,
        lastError: r.last_error,
        queuedAt: r.created_at.toISOString(),
        sentAt: r.sent_at?.toISOString() ?? null,
      })),
    };
  }

  private async partnerOrder(
    p: PaymentIntentRecord | undefined,
    story: LedgerOperationStory | undefined,
  ): Promise<Omit<StoryPartnerOrderPart, 'unavailable'>> {
    const token = p?.qrToken ?? story?.qrToken ?? null;
    if (!token || !PARTNER_QR.test(token)) return { order: null };
    const o = await this.qr.resolve(token);
    return {
      order: {
        orderId: o.orderId,
        status: o.status,
        amount: o.amount,
        currency: o.currencyCode,
        integrationId: o.integrationId,
        integrationName: o.integrationName,
        merchantId: o.merchantId,
        description: o.description,
        expiresAt: o.expiresAt,
      },
    };
  }

  private async part<T extends { unavailable: string | null }>(
    name: string,
    read: () => Promise<Omit<T, 'unavailable'>>,
    empty: Omit<T, 'unavailable'>,
  ): Promise<T> {
    try {
      return { unavailable: null, ...(await read()) } as T;
    } catch (error) {
      return { unavailable: this.failed(name, error), ...empty } as T;
    }
  }

  private failed(part: string, error: unknown): string {
    const code = codeOf(error);
    if (code !== 'TRANSACTION_NOT_FOUND') this.logger.warn({ msg: 'payment story: a part could not be read', part, code, err: error });
    return code;
  }
}
