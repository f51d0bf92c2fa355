import { ApiProperty } from '@nestjs/swagger';
import {
  type Currency,
  LEDGER_TRANSACTION_TYPES,
  type LedgerAccountStatement,
  type LedgerStatementLine,
  type LedgerTransactionType,
  SETTLEMENT_LINE_CATEGORIES,
  SUPPORTED_CURRENCIES,
  type SettlementLineCategory,
} from '@mm/contracts';

/** One ledger entry of the account (the contract's LedgerStatementLine, documented). */
export class LedgerStatementLineView implements LedgerStatementLine {
  @ApiProperty({ format: 'uuid', example: '0f5e3c2a-9b8d-4e7f-a1c3-5d7e9f1b3a5c' })
  entryId: string;

  @ApiProperty({ format: 'uuid', example: '952d7761-bd47-4c7e-a37b-af9e58997e7b' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611270A1B2C3' })
  referenceId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T09:14:03.512Z', description: 'to the millisecond' })
  bookedAt: string;

  @ApiProperty({ enum: LEDGER_TRANSACTION_TYPES, example: 'TRANSFER' })
  transactionType: LedgerTransactionType;

  @ApiProperty({
    enum: SETTLEMENT_LINE_CATEGORIES,
    example: 'PAYMENT',
    description: 'what the entry is to the holder (docs/statements.md)',
  })
  category: SettlementLineCategory;

  @ApiProperty({ enum: ['CREDIT', 'DEBIT'], example: 'CREDIT' })
  direction: 'CREDIT' | 'DEBIT';

  @ApiProperty({ type: 'integer', minimum: 1, example: 4_500 })
  amount: number;

  @ApiProperty({ type: 'integer', example: 129_500, description: 'the balance once this entry applied' })
  balanceAfter: number;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'a REVERSAL: the reference of what it undoes' })
  reversalOf: string | null;

  @ApiProperty({ example: true, description: 'the payment was made by scanning a QR (it may have paid a partner order)' })
  viaQr: boolean;
}

/** The account over [from, to) (the contract's LedgerAccountStatement, documented). */
export class LedgerAccountStatementView implements LedgerAccountStatement {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ format: 'date-time', example: '2026-11-26T23:00:00.000Z' })
  from: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T23:00:00.000Z' })
  to: string;

  @ApiProperty({
    type: 'integer',
    example: 100_000,
    description: 'the balance before the first line: the stored balance less every entry from the from cut on',
  })
  openingBalance: number;

  @ApiProperty({
    type: 'integer',
    example: 1_485_500,
    description: 'the balance after the last line (the stored balance while no entry is stamped at or after to)',
  })
  closingBalance: number;

  @ApiProperty({
    example: true,
    description: 'to is older than LEDGER_STATEMENT_FINAL_AFTER_MS: the same request always gets the same answer',
  })
  final: boolean;

  @ApiProperty({ type: [LedgerStatementLineView], description: 'the entries applied in the period, in chain order (the order applied)' })
  lines: LedgerStatementLineView[];
}
