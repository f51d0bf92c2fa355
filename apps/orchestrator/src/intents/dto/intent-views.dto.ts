import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type Currency, INTENT_STATUSES, INTENT_TYPES, type IntentStatus, type IntentType, SUPPORTED_CURRENCIES } from '@mm/contracts';

export class CounterpartyView {
  @ApiProperty({ example: 'Awa N.', description: 'a person as first name and initial, a merchant by its business name' })
  displayName: string;

  @ApiProperty({ example: '+2376•••••02', description: 'masked phone number' })
  phone: string;
}

/** 201 of `POST /api/v1/intents` (docs/mobile-api.md "Create"). */
export class CreatedIntentView {
  @ApiProperty({ format: 'uuid', example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37' })
  intentId: string;

  @ApiProperty({ enum: ['CREATED'], example: 'CREATED' })
  status: 'CREATED';

  @ApiProperty({ example: false, description: 'true: send-otp and verify-otp come before verify-pin (cash-out without a withdrawal QR)' })
  requiresOtp: boolean;

  @ApiProperty({
    example: '2026-11-22T10:15:00.000Z',
    description: 'the intent expires unconfirmed after this instant (10 minutes by default)',
  })
  expiresAt: string;

  @ApiProperty({ enum: INTENT_TYPES, example: 'TRANSFER' })
  type: IntentType;

  @ApiProperty({ example: 5000 })
  amount: number;

  @ApiProperty({ example: 50, description: 'fee quoted now; confirm charges it, or less if the grid became cheaper meanwhile' })
  fee: number;

  @ApiProperty({ example: 5050, description: 'amount + fee: what the payer account holds back now' })
  total: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ type: CounterpartyView, description: 'the other party, for the confirmation screen' })
  counterparty: CounterpartyView;
}

/** 200 of verify-otp, verify-pin and cancel. */
export class IntentStepView {
  @ApiProperty({ format: 'uuid', example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37' })
  intentId: string;

  @ApiProperty({ enum: INTENT_STATUSES, example: 'PIN_VERIFIED', description: 'the status reached' })
  status: IntentStatus;
}

/** 200 of send-otp. */
export class OtpSentView extends IntentStepView {
  @ApiProperty({ example: '+2376•••••02', description: 'where the code went (masked)' })
  sentTo: string;

  @ApiProperty({ example: 300, description: 'the code is valid this many seconds' })
  expiresInSec: number;

  @ApiProperty({ example: 60, description: 'a new code can be asked after this many seconds (429 OTP_THROTTLED before)' })
  resendAfterSec: number;
}

/** 200 of confirm (docs/mobile-api.md "confirm"). */
export class ConfirmedIntentView {
  @ApiProperty({ format: 'uuid', example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37' })
  intentId: string;

  @ApiProperty({ enum: ['SUCCEEDED'], example: 'SUCCEEDED' })
  status: 'SUCCEEDED';

  @ApiProperty({ format: 'uuid', example: '5b8e1c3d-2a4f-4b6e-8d9c-0e1f2a3b4c5d' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX2611220A1B2C3', description: 'readable reference for receipts and support' })
  referenceId: string;

  @ApiProperty({ example: 5000 })
  amount: number;

  @ApiProperty({ example: 50, description: 'fee charged to the payer' })
  fees: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ example: '2026-11-22T10:06:12.345Z' })
  completedAt: string;
}

/** 200 of `GET /api/v1/intents/:id`: the intent as the ledger holds it now. */
export class IntentView {
  @ApiProperty({ format: 'uuid', example: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37' })
  intentId: string;

  @ApiProperty({ enum: INTENT_TYPES, example: 'CASH_OUT' })
  type: IntentType;

  @ApiProperty({ enum: INTENT_STATUSES, example: 'OTP_SENT' })
  status: IntentStatus;

  @ApiProperty({ example: true })
  requiresOtp: boolean;

  @ApiProperty({ example: 20000 })
  amount: number;

  @ApiProperty({ example: 400, description: 'quoted fee until confirm, then the fee charged' })
  fee: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({ type: CounterpartyView })
  counterparty: CounterpartyView;

  @ApiPropertyOptional({ example: 'Rent June', nullable: true, type: String })
  description: string | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, example: null })
  transactionId: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: null })
  referenceId: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: null, description: 'why a FAILED, EXPIRED or CANCELED intent ended' })
  failureReason: string | null;

  @ApiProperty({ example: '2026-11-22T10:15:00.000Z' })
  expiresAt: string;

  @ApiProperty({ example: '2026-11-22T10:05:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-11-22T10:05:40.000Z' })
  updatedAt: string;
}
