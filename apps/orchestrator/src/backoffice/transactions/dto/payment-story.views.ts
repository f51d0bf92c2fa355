import { ApiProperty } from '@nestjs/swagger';
import { OrderWebhookEventDto, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { BackofficeTransactionView, StaffPartyView } from './transaction-search.views';

const UNAVAILABLE = {
  type: String,
  nullable: true,
  example: null,
  description:
    'null when the part was read (its fields then hold it, or are null/empty when it does not apply to this operation); otherwise the stable error code of why it could not be read now (UPSTREAM_UNAVAILABLE, UPSTREAM_TIMEOUT, STORY_PART_UNAVAILABLE, …), and its fields are null',
};

export class IntentEventView {
  @ApiProperty({ type: String, nullable: true, example: 'PIN_VERIFIED' })
  fromStatus: string | null;

  @ApiProperty({ example: 'SUCCEEDED' })
  toStatus: string;

  @ApiProperty({ example: 'CONFIRMED', description: 'what moved the intent' })
  event: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'who moved it (a user id, or a system actor)',
    example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b',
  })
  actorId: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  at: string;
}

export class JournalEntryView {
  @ApiProperty({ format: 'uuid', example: '5f1e2d3c-4b5a-4968-8776-655443322110' })
  entryId: string;

  @ApiProperty({
    format: 'uuid',
    description: 'the transaction this entry belongs to (the payment, or its reversal)',
    example: '952d7761-bd47-4c7e-a37b-af9e58997e7b',
  })
  transactionId: string;

  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({ example: 'customer', description: 'customer, merchant, agent, agent_commission, fee_collection, treasury, suspense, …' })
  accountType: string;

  @ApiProperty({ example: 'Awa Ndiaye' })
  holder: string;

  @ApiProperty({ enum: ['DEBIT', 'CREDIT'] })
  direction: 'DEBIT' | 'CREDIT';

  @ApiProperty({ type: 'integer', example: 20000 })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ format: 'uuid', description: 'the entry on the other side of this one', example: '6a2f3e4d-5c6b-4a79-8887-766554433221' })
  counterpartyEntryId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  createdAt: string;
}

/** What the ledger holds: the operation, its intent's journal, its double-entry lines (and its reversal's). */
export class StoryLedgerPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: BackofficeTransactionView, nullable: true })
  operation: BackofficeTransactionView | null;

  @ApiProperty({
    type: [IntentEventView],
    nullable: true,
    description: "the intent's status changes, oldest first (empty for an ADJUSTMENT)",
  })
  events: IntentEventView[] | null;

  @ApiProperty({ type: [JournalEntryView], nullable: true, description: 'the entries of its transaction, then of its reversal' })
  entries: JournalEntryView[] | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 20200, description: 'sum of the debits of the entries' })
  debits: number | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 20200, description: 'sum of the credits of the entries' })
  credits: number | null;

  @ApiProperty({ type: Boolean, nullable: true, example: true, description: 'debits = credits for each transaction of the entries' })
  balanced: boolean | null;

  @ApiProperty({ type: String, nullable: true, description: "an ADJUSTMENT's reason, as its maker wrote it", example: null })
  reason: string | null;
}

/** The orchestrator's record of the payment: who, what was priced, how it ended. */
export class StoryPaymentPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'the public intent id (what the app calls /api/v1/intents/{id} with)',
    example: '3c9b8a7d-6e5f-4a1b-9c2d-3e4f5a6b7c8d',
  })
  publicIntentId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'MERCHANT_PAYMENT' })
  operationType: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['PENDING', 'CREATED', 'SETTLED', 'CLOSED'],
    example: 'SETTLED',
    description:
      "how far the orchestrator's own work got (PENDING: the ledger not yet heard to create the intent; CREATED; SETTLED: the success recorded, SMS queued; CLOSED: nothing left to do). The intent's status is the ledger part's",
  })
  stage: string | null;

  @ApiProperty({ type: StaffPartyView, nullable: true })
  payer: StaffPartyView | null;

  @ApiProperty({ type: StaffPartyView, nullable: true })
  payee: StaffPartyView | null;

  @ApiProperty({ type: String, nullable: true, example: 'AG00012345' })
  agentCode: string | null;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'who started it',
    example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b',
  })
  initiatorUserId: string | null;

  @ApiProperty({ type: String, nullable: true, example: '3 sandwiches' })
  description: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  failureReason: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 0, description: 'wrong PINs entered' })
  pinAttempts: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the correlation id of the request that created it (for the logs)',
    example: '2e4f6a8c-0b1d-4f3e-9a5c-7e9b1d3f5a7c',
  })
  correlationId: string | null;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, example: '2026-11-22T10:06:12.345Z' })
  createdAt: string | null;
}

export class RiskSignalView {
  @ApiProperty({ example: 'VELOCITY_COUNT' })
  rule: string;

  @ApiProperty({ enum: ['PASS', 'FLAG', 'REJECT', 'SKIPPED', 'UNAVAILABLE'] })
  outcome: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'what the rule measured (its threshold, the value seen)',
  })
  detail: Record<string, unknown> | null;
}

export class RiskDecisionView {
  @ApiProperty({ format: 'uuid', example: '8e7d6c5b-4a39-4281-9f0e-1d2c3b4a5f6e' })
  decisionId: string;

  @ApiProperty({ enum: ['CREATE', 'CONFIRM'] })
  stage: string;

  @ApiProperty({ enum: ['ACCEPT', 'REJECT'] })
  outcome: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'why it was refused' })
  reasonCode: string | null;

  @ApiProperty({ type: 'integer', example: 1, description: 'the risk configuration version applied' })
  rulesVersion: number;

  @ApiProperty({ type: [RiskSignalView] })
  signals: RiskSignalView[];

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  createdAt: string;
}

export class StoryRiskPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: [RiskDecisionView], nullable: true, description: 'at creation, then at confirmation; empty for an ADJUSTMENT' })
  decisions: RiskDecisionView[] | null;
}

export class FeeQuoteView {
  @ApiProperty({ format: 'uuid', example: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' })
  quoteId: string;

  @ApiProperty({ type: 'integer', example: 200 })
  fee: number;

  @ApiProperty({ type: 'integer', example: 0 })
  commission: number;

  @ApiProperty({ type: 'integer', example: 1, description: 'the pricing grid version quoted' })
  gridVersion: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  quotedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  expiresAt: string;
}

export class FeeChargedView {
  @ApiProperty({ type: 'integer', example: 200 })
  fee: number;

  @ApiProperty({ type: 'integer', example: 0 })
  commission: number;

  @ApiProperty({ type: 'integer', example: 1 })
  gridVersion: number;

  @ApiProperty({ enum: ['QUOTE_HONOURED', 'ACTIVE_GRID_LOWER', 'QUOTE_EXPIRED'], description: 'which price the confirmation kept' })
  rule: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  settledAt: string;
}

export class StoryFeePart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: FeeQuoteView, nullable: true, description: 'the quote given when the intent was created' })
  quote: FeeQuoteView | null;

  @ApiProperty({ type: FeeChargedView, nullable: true, description: 'what the confirmation charged; null until confirmed' })
  charged: FeeChargedView | null;
}

export class StoryCommissionPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'AG00012345', description: 'the agent earning it; null when no agent took part' })
  agentCode: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 160, description: 'the commission charged (quoted, until confirmed)' })
  amount: number | null;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: "the agent's commission account",
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
  })
  accountId: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 160, description: 'what the journal credited to that account' })
  credited: number | null;
}

export class SmsView {
  @ApiProperty({ example: '+237690000001' })
  to: string;

  @ApiProperty({ example: 'You paid 20 000 XAF to Boutique 1234. Fee 200 XAF. Ref MMPTX2611220A1B2C3.' })
  text: string;

  @ApiProperty({ enum: ['pending', 'sent', 'failed', 'cancelled'] })
  status: string;

  @ApiProperty({ type: 'integer', example: 1 })
  attempts: number;

  @ApiProperty({ type: String, nullable: true, example: null })
  lastError: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  queuedAt: string;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, example: '2026-11-22T10:06:12.345Z' })
  sentAt: string | null;
}

export class StorySmsPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: [SmsView], nullable: true, description: 'the SMS written about the payment (payer, then payee)' })
  messages: SmsView[] | null;
}

export class PartnerOrderView {
  @ApiProperty({ format: 'uuid', example: '4b3a2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d' })
  orderId: string;

  @ApiProperty({ enum: ['pending', 'paid', 'expired'] })
  status: string;

  @ApiProperty({ type: 'integer', example: 20000 })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES })
  currency: string;

  @ApiProperty({ format: 'uuid', example: '3f2e1d0c-9b8a-4f7e-8d6c-5b4a3f2e1d0c' })
  integrationId: string;

  @ApiProperty({ example: 'Shop online' })
  integrationName: string;

  @ApiProperty({ format: 'uuid', example: '2d1c0b9a-8f7e-4d6c-9b5a-4f3e2d1c0b9a' })
  merchantId: string;

  @ApiProperty({ type: String, nullable: true, example: '3 sandwiches' })
  description: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  expiresAt: string;
}

export class StoryPartnerOrderPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({
    type: PartnerOrderView,
    nullable: true,
    description: 'the partner order the payment paid (a QR of an order); null for any other payment',
  })
  order: PartnerOrderView | null;
}

export class StoryWebhooksPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({
    type: [OrderWebhookEventDto],
    nullable: true,
    description:
      "the partner's webhook events about the order (order.paid, …), oldest first, each with every delivery attempt; empty for a payment of no order",
  })
  events: OrderWebhookEventDto[] | null;
}

export class PaymentStoryView {
  @ApiProperty({ example: 'MMPTX2611220A1B2C3', description: 'the reference or intent id asked for' })
  key: string;

  @ApiProperty({ type: StoryLedgerPart })
  ledger: StoryLedgerPart;

  @ApiProperty({ type: StoryPaymentPart })
  payment: StoryPaymentPart;

  @ApiProperty({ type: StoryRiskPart })
  risk: StoryRiskPart;

  @ApiProperty({ type: StoryFeePart })
  fee: StoryFeePart;

  @ApiProperty({ type: StoryCommissionPart })
  commission: StoryCommissionPart;

  @ApiProperty({ type: StorySmsPart })
  sms: StorySmsPart;

  @ApiProperty({ type: StoryPartnerOrderPart })
  partnerOrder: StoryPartnerOrderPart;

  @ApiProperty({ type: StoryWebhooksPart })
  webhooks: StoryWebhooksPart;
}
