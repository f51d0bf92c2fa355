import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES, type Currency } from '@mm/contracts';
import { HISTORY_TYPES, type HistoryType } from './transaction-query.dto';

export class PartyView {
  @ApiProperty({ example: 'Awa N.', description: 'a person as first name and initial, a merchant by its business name' })
  displayName: string;

  @ApiProperty({ example: '+2376•••••02', description: 'masked phone number' })
  phone: string;
}

export class AgentPartyView extends PartyView {
  @ApiProperty({ example: 'AG00012345' })
  agentCode: string;
}

export const HISTORY_LINE_KINDS = ['PAYMENT', 'REVERSAL', 'CORRECTION'] as const;
export type HistoryLineKind = (typeof HISTORY_LINE_KINDS)[number];

/**
 * One line of a history: a completed payment, the reversal of one, or another correction of the
 * caller's balance (an operator's adjustment under maker-checker), as the caller may see it.
 */
export class TransactionView {
  @ApiProperty({
    enum: HISTORY_LINE_KINDS,
    example: 'PAYMENT',
    description:
      "PAYMENT: a completed payment. REVERSAL: an operator undid a payment (`reverses` names it; parties, amount and fee are the payment's, the direction is the opposite). CORRECTION: an operator's adjustment of the caller's balance (no intent, no parties)",
  })
  kind: HistoryLineKind;

  @ApiProperty({ example: 'MMPTX2611220A1B2C3' })
  referenceId: string;

  @ApiProperty({
    format: 'uuid',
    example: '952d7761-bd47-4c7e-a37b-af9e58997e7b',
    description: 'the ledger transaction that moved the money',
  })
  transactionId: string;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37',
    description:
      'the intent that carried the payment (the `intentId` of `POST /api/v1/intents`); a REVERSAL: that of the payment it undoes; null for a CORRECTION',
  })
  intentId: string | null;

  @ApiProperty({ enum: ['TRANSFER', 'CASH_IN', 'CASH_OUT', 'ADJUSTMENT'], example: 'TRANSFER', description: 'ADJUSTMENT for a CORRECTION' })
  type: 'TRANSFER' | 'CASH_IN' | 'CASH_OUT' | 'ADJUSTMENT';

  @ApiProperty({
    enum: [...HISTORY_TYPES, 'ADJUSTMENT'],
    example: 'TRANSFER',
    description:
      'MERCHANT_PAYMENT: a TRANSFER whose payee is a merchant; a REVERSAL has the type of the payment it undoes; ADJUSTMENT for a CORRECTION',
  })
  operationType: HistoryType | 'ADJUSTMENT';

  @ApiProperty({
    enum: ['DEBIT', 'CREDIT'],
    nullable: true,
    example: 'DEBIT',
    description:
      "the caller's side: DEBIT when money left its account, CREDIT when it arrived (a REVERSAL: the opposite of the payment it undoes); null for staff",
  })
  direction: 'DEBIT' | 'CREDIT' | null;

  @ApiProperty({
    type: 'integer',
    example: 20000,
    description: 'the payment amount (a REVERSAL: the amount of the payment it undoes; a CORRECTION: the size of the change)',
  })
  amount: number;

  @ApiProperty({ example: 200, description: 'fee the payer paid on top of the amount' })
  fee: number;

  @ApiProperty({ example: 20200, description: 'what left the payer account: amount + fee' })
  total: number;

  @ApiPropertyOptional({
    example: 160,
    nullable: true,
    type: Number,
    description: 'agent commission (cash operations), shown to that agent, its master agent and staff; null otherwise',
  })
  commission: number | null;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'Rent June' })
  description: string | null;

  @ApiProperty({
    type: PartyView,
    nullable: true,
    description:
      'whose account was debited (an agent float for a cash-in); a REVERSAL: the payer of the payment it undoes; null for a CORRECTION',
  })
  payer: PartyView | null;

  @ApiProperty({
    type: PartyView,
    nullable: true,
    description:
      'whose account was credited (an agent float for a cash-out); a REVERSAL: the payee of the payment it undoes; null for a CORRECTION',
  })
  payee: PartyView | null;

  @ApiPropertyOptional({ type: AgentPartyView, nullable: true, description: 'the agent of a cash operation' })
  agent: AgentPartyView | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: -20200,
    description:
      "the signed change this line made to the caller's own accounts in its currency (main and commission accounts together): the lines of a whole history add up to the caller's balance. null when the caller is not a party (staff, a master agent reading its agents' operations)",
  })
  balanceChange: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'a REVERSAL: the referenceId of the payment it undoes; null otherwise',
  })
  reverses: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'a PAYMENT that was reversed: the referenceId of its REVERSAL (its own line, also a receipt); null otherwise',
  })
  reversedBy: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  completedAt: string;
}

export class TransactionPage {
  @ApiProperty({ type: [TransactionView] })
  items: TransactionView[];

  @ApiProperty({
    nullable: true,
    type: String,
    example: 'WyIyMDI2LTExLTIyVDEwOjA2OjEyLjM0NVoiLCIzYjhmMWQyZS02YTRjLTRlOWItOGQ3Zi0wYzJhNGU2YjhkMWYiXQ',
    description: 'pass as cursor for the next page; null on the last one',
  })
  nextCursor: string | null;
}
