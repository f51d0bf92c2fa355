import { ApiProperty } from '@nestjs/swagger';
import {
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

/** A party of a payment as the orchestrator recorded it when the intent was created. */
export class StaffPartyView {
  @ApiProperty({
    format: 'uuid',
    example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b',
    description: 'the user id (the person 360 view opens with it)',
  })
  userId: string;

  @ApiProperty({ example: 'CUSTOMER', description: 'the role the party had then' })
  role: string;

  @ApiProperty({ example: 'Awa N.' })
  displayName: string;

  @ApiProperty({ example: '+237690000001', description: 'the phone the party had then, in full (staff read it; the read is audited)' })
  phone: string;

  @ApiProperty({
    format: 'uuid',
    description: 'the account the payment debited or credited',
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
  })
  accountId: string;
}

/** One operation in the back office's search: an intent (whatever became of it) or an operator's adjustment. */
export class BackofficeTransactionView {
  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'the ledger intent; null for an ADJUSTMENT',
    example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37',
  })
  intentId: string | null;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'the ledger transaction; null until the intent succeeded',
    example: '952d7761-bd47-4c7e-a37b-af9e58997e7b',
  })
  transactionId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'MMPTX2611220A1B2C3', description: 'null until the intent succeeded' })
  referenceId: string | null;

  @ApiProperty({ enum: OPERATION_TYPES, example: 'TRANSFER' })
  type: OperationSearchType;

  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['TRANSFER', 'MERCHANT_PAYMENT', 'CASH_IN', 'CASH_OUT'],
    example: 'MERCHANT_PAYMENT',
    description: 'the priced operation (a TRANSFER to a merchant is MERCHANT_PAYMENT); null for an ADJUSTMENT',
  })
  operationType: string | null;

  @ApiProperty({ enum: OPERATION_STATUSES, example: 'SUCCEEDED', description: 'the intent status; an ADJUSTMENT is SUCCEEDED' })
  status: OperationSearchStatus;

  @ApiProperty({ type: 'integer', example: 20000 })
  amount: number;

  @ApiProperty({ type: 'integer', example: 200, description: 'the fee the ledger charged (or froze, before the intent succeeded)' })
  fee: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'the account debited; null for an ADJUSTMENT (its journal says which)',
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
  })
  sourceAccountId: string | null;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'the account credited; null for an ADJUSTMENT',
    example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  })
  destinationAccountId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Awa Ndiaye', description: "the debited account's holder, as the ledger names it" })
  sourceHolder: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Boutique 1234',
    description: "the credited account's holder, as the ledger names it",
  })
  destinationHolder: string | null;

  @ApiProperty({ type: StaffPartyView, nullable: true, description: 'who paid, as the orchestrator recorded it; null for an ADJUSTMENT' })
  payer: StaffPartyView | null;

  @ApiProperty({ type: StaffPartyView, nullable: true, description: 'who was paid; null for an ADJUSTMENT' })
  payee: StaffPartyView | null;

  @ApiProperty({ type: String, nullable: true, example: 'AG00012345', description: 'the agent of a cash operation' })
  agentCode: string | null;

  @ApiProperty({ type: OperationLinkView, nullable: true, description: 'an ADJUSTMENT that reverses a payment: that payment' })
  reverses: OperationLinkView | null;

  @ApiProperty({ type: OperationLinkView, nullable: true, description: 'a payment that was reversed: its reversal' })
  reversedBy: OperationLinkView | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'why the intent failed' })
  failureReason: string | null;

  @ApiProperty({
    example: '2026-11-22T10:06:12.345678Z',
    description: 'when the intent was created, or the adjustment made (UTC, to the microsecond): the list is newest first by this time',
  })
  at: string;

  @ApiProperty({ format: 'date-time', type: String, nullable: true, example: '2026-11-22T10:06:14.120Z' })
  completedAt: string | null;
}

export class BackofficeTransactionPage {
  @ApiProperty({ type: [BackofficeTransactionView] })
  items: BackofficeTransactionView[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'pass as cursor, with the same filters, for the next page; null on the last one',
    example: 'WyIyMDI2LTExLTIyVDEwOjA2OjEyLjM0NTY3OFoiLCIwZDVlMmY5YS03YzFiLTRhM2UtOWY4ZC0yYjZjNGUxYTBmMzciXQ',
  })
  nextCursor: string | null;
}
