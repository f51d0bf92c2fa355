import { ApiProperty } from '@nestjs/swagger';
import { ADJUSTMENT_KINDS, type AdjustmentKind, type LedgerAdjustment, type LedgerReversalLink, SUPPORTED_CURRENCIES } from '@mm/contracts';

export class ReversedTransactionView {
  @ApiProperty({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611220A1B2C3' })
  referenceId: string;
}

/** One adjustment (a reversal or any other correction) as it touched the accounts asked about (the contract's LedgerAdjustment, documented). */
export class AdjustmentViewDto implements LedgerAdjustment {
  @ApiProperty({ format: 'uuid', example: '3b8f1d2e-6a4c-4e9b-8d7f-0c2a4e6b8d1f' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611230Z9Y8X7' })
  referenceId: string;

  @ApiProperty({
    enum: ADJUSTMENT_KINDS,
    example: 'REVERSAL',
    description: 'REVERSAL undoes a whole transaction; CORRECTION is any other adjustment',
  })
  kind: AdjustmentKind;

  @ApiProperty({ type: ReversedTransactionView, nullable: true, description: 'the transaction a REVERSAL undoes; null for a CORRECTION' })
  reversalOf: ReversedTransactionView | null;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({
    type: 'integer',
    example: 10_000,
    description: 'the adjustment transaction amount (a reversal: the amount of what it undoes)',
  })
  amount: number;

  @ApiProperty({ type: 'integer', example: 100, description: 'a reversal: the fee of what it undoes; 0 otherwise' })
  fee: number;

  @ApiProperty({
    type: 'integer',
    example: 10_100,
    description: 'the net change it made to the accounts asked about (credits − debits on them), signed',
  })
  change: number;

  @ApiProperty({ type: String, nullable: true, example: 'Customer paid the wrong person', description: "the operator's reason" })
  reason: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T08:00:00.000Z', description: 'to the millisecond' })
  completedAt: string;
}

/** A transaction that has been reversed, and the reversal (the contract's LedgerReversalLink, documented). */
export class ReversalLinkView implements LedgerReversalLink {
  @ApiProperty({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b', description: 'the transaction reversed' })
  reversalOf: string;

  @ApiProperty({ format: 'uuid', example: '3b8f1d2e-6a4c-4e9b-8d7f-0c2a4e6b8d1f', description: 'the reversal' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611230Z9Y8X7' })
  referenceId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T08:00:00.000Z' })
  completedAt: string;
}
