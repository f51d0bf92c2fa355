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
  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'null for an ADJUSTMENT',
    example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37',
  })
  intentId: string | null;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'null until the intent succeeded',
    example: '952d7761-bd47-4c7e-a37b-af9e58997e7b',
  })
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

  @ApiProperty({ format: 'uuid', type: String, nullable: true, example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  sourceAccountId: string | null;

  @ApiProperty({ format: 'uuid', type: String, nullable: true, example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' })
  destinationAccountId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Awa Ndiaye' })
  sourceHolder: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Boutique 1234' })
  destinationHolder: string | null;

  @ApiProperty({ type: OperationLinkView, nullable: true })
  reverses: OperationLinkView | null;

  @ApiProperty({ type: OperationLinkView, nullable: true })
  reversedBy: OperationLinkView | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  failureReason: string | null;

  @ApiProperty({ example: '2026-11-22T10:06:12.345678Z', description: 'intent created / adjustment completed, to the microsecond' })
  at: string;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, example: '2026-11-22T10:06:12.345Z' })
  completedAt: string | null;
}

export class LedgerOperationPageView implements LedgerOperationPage {
  @ApiProperty({ type: [LedgerOperationView] })
  items: LedgerOperationView[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'WyIyMDI2LTExLTIyVDEwOjA2OjEyLjM0NTY3OFoiLCIwZDVlMmY5YS03YzFiLTRhM2UtOWY4ZC0yYjZjNGUxYTBmMzciXQ',
  })
  nextCursor: string | null;
}

export class LedgerIntentEventView implements LedgerIntentEvent {
  @ApiProperty({ type: String, nullable: true, example: 'PIN_VERIFIED' })
  fromStatus: string | null;

  @ApiProperty({ example: 'SUCCEEDED' })
  toStatus: string;

  @ApiProperty({ example: 'CONFIRMED' })
  event: string;

  @ApiProperty({ type: String, nullable: true, example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' })
  actorId: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  at: string;
}

export class LedgerJournalEntryView implements LedgerJournalEntry {
  @ApiProperty({ format: 'uuid', example: '5f1e2d3c-4b5a-4968-8776-655443322110' })
  entryId: string;

  @ApiProperty({
    format: 'uuid',
    description: "the operation's transaction, or its reversal's",
    example: '952d7761-bd47-4c7e-a37b-af9e58997e7b',
  })
  transactionId: string;

  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
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

  @ApiProperty({ format: 'uuid', example: '6a2f3e4d-5c6b-4a79-8887-766554433221' })
  counterpartyEntryId: string;

  @ApiProperty({
    example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b',
    description: 'who wrote the entry (the initiator, or the operator of an adjustment)',
  })
  createdBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  createdAt: string;
}

export class LedgerOperationStoryView implements LedgerOperationStory {
  @ApiProperty({ type: LedgerOperationView })
  operation: LedgerOperationView;

  @ApiProperty({ type: [LedgerIntentEventView] })
  events: LedgerIntentEventView[];

  @ApiProperty({ type: [LedgerJournalEntryView], description: 'the entries of its transaction, then of its reversal' })
  entries: LedgerJournalEntryView[];

  @ApiProperty({ type: String, nullable: true, example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' })
  initiatedBy: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  agentId: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  qrToken: string | null;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, example: '2026-11-22T10:06:12.345Z' })
  expiresAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  reason: string | null;
}
