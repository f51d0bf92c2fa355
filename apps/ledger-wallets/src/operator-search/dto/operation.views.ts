import { ApiProperty } from '@nestjs/swagger';
import {
  type LedgerIntentEvent,
  type LedgerJournalEntry,
  type LedgerOperation,
  type LedgerOperationPage,
  type LedgerOperationStory,
  OPERATION_STATUSES,
  OPERATION_TYPES,
  type OperationSearchStatus,
  type OperationSearchType,
  SUPPORTED_CURRENCIES,
} from '@mm/contracts';

export class OperationLinkView {
  @ApiProperty({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611220A1B2C3' })
  referenceId: string;
}

/** The contract's LedgerOperation, documented. */
export class LedgerOperationView implements LedgerOperation {
  @ApiProperty({ format: 'uuid', type: String, nullable: true, description: 'null for an ADJUSTMENT' })
  intentId: string | null;

  @ApiProperty({ format: 'uuid', type: String, nullable: true, description: 'null until the intent succeeded' })
  transactionId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'MMPTX2611220A1B2C3' })
  referenceId: string | null;

  @ApiProperty({ enum: OPERATION_TYPES })
  type: OperationSearchType;

  @ApiProperty({ enum: OPERATION_STATUSES, description: 'an ADJUSTMENT is SUCCEEDED' })
  status: OperationSearchStatus;

  @ApiProperty({ type: 'integer', example: 20000 })
  amount: number;

  @ApiProperty({ type: 'integer', example: 200 })
  fee: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ format: 'uuid', type: String, nullable: true })
  sourceAccountId: string | null;

  @ApiProperty({ format: 'uuid', type: String, nullable: true })
  destinationAccountId: string | null;

  @ApiProperty({ type: String, nullable: true })
  sourceHolder: string | null;

  @ApiProperty({ type: String, nullable: true })
  destinationHolder: string | null;

  @ApiProperty({ type: OperationLinkView, nullable: true })
  reverses: OperationLinkView | null;

  @ApiProperty({ type: OperationLinkView, nullable: true })
  reversedBy: OperationLinkView | null;

  @ApiProperty({ type: String, nullable: true })
  failureReason: string | null;

  @ApiProperty({ example: '2026-11-22T10:06:12.345678Z', description: 'intent created / adjustment completed, to the microsecond' })
  at: string;

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  completedAt: string | null;
}

export class LedgerOperationPageView implements LedgerOperationPage {
  @ApiProperty({ type: [LedgerOperationView] })
  items: LedgerOperationView[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}

export class LedgerIntentEventView implements LedgerIntentEvent {
  @ApiProperty({ type: String, nullable: true, example: 'PIN_VERIFIED' })
  fromStatus: string | null;

  @ApiProperty({ example: 'SUCCEEDED' })
  toStatus: string;

  @ApiProperty({ example: 'CONFIRMED' })
  event: string;

  @ApiProperty({ type: String, nullable: true })
  actorId: string | null;

  @ApiProperty({ format: 'date-time' })
  at: string;
}

export class LedgerJournalEntryView implements LedgerJournalEntry {
  @ApiProperty({ format: 'uuid' })
  entryId: string;

  @ApiProperty({ format: 'uuid', description: "the operation's transaction, or its reversal's" })
  transactionId: string;

  @ApiProperty({ format: 'uuid' })
  accountId: string;

  @ApiProperty({ example: 'customer' })
  accountType: string;

  @ApiProperty({ example: 'Awa Ndiaye' })
  holder: string;

  @ApiProperty({ enum: ['DEBIT', 'CREDIT'] })
  direction: 'DEBIT' | 'CREDIT';

  @ApiProperty({ type: 'integer', example: 20000 })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ format: 'uuid' })
  counterpartyEntryId: string;

  @ApiProperty()
  createdBy: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class LedgerOperationStoryView implements LedgerOperationStory {
  @ApiProperty({ type: LedgerOperationView })
  operation: LedgerOperationView;

  @ApiProperty({ type: [LedgerIntentEventView] })
  events: LedgerIntentEventView[];

  @ApiProperty({ type: [LedgerJournalEntryView], description: 'the entries of its transaction, then of its reversal' })
  entries: LedgerJournalEntryView[];

  @ApiProperty({ type: String, nullable: true })
  initiatedBy: string | null;

  @ApiProperty({ type: String, nullable: true })
  agentId: string | null;

  @ApiProperty({ type: String, nullable: true })
  qrToken: string | null;

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  expiresAt: string | null;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}
