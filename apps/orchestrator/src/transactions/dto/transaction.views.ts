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

/** One completed payment, as the caller may see it. */
export class TransactionView {
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
    example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37',
    description: 'the intent that carried the payment (the `intentId` of `POST /api/v1/intents`)',
  })
  intentId: string;

  @ApiProperty({ enum: ['TRANSFER', 'CASH_IN', 'CASH_OUT'], example: 'TRANSFER' })
  type: 'TRANSFER' | 'CASH_IN' | 'CASH_OUT';

  @ApiProperty({ enum: HISTORY_TYPES, example: 'TRANSFER', description: 'MERCHANT_PAYMENT: a TRANSFER whose payee is a merchant' })
  operationType: HistoryType;

  @ApiProperty({
    enum: ['DEBIT', 'CREDIT'],
    nullable: true,
    example: 'DEBIT',
    description: "the caller's side: DEBIT when money left its account, CREDIT when it arrived; null for staff",
  })
  direction: 'DEBIT' | 'CREDIT' | null;

  @ApiProperty({ example: 20000 })
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

  @ApiProperty({ type: PartyView, description: 'whose account was debited (an agent float for a cash-in)' })
  payer: PartyView;

  @ApiProperty({ type: PartyView, description: 'whose account was credited (an agent float for a cash-out)' })
  payee: PartyView;

  @ApiPropertyOptional({ type: AgentPartyView, nullable: true, description: 'the agent of a cash operation' })
  agent: AgentPartyView | null;

  @ApiProperty({ example: '2026-11-22T10:06:12.345Z' })
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
