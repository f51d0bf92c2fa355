import { ApiProperty } from '@nestjs/swagger';
import { type Currency, INTENT_TYPES, type IntentType, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { INTENT_STATUSES, type IntentStatus } from '../intent-state-machine';
import type { IntentEventView, IntentView } from '../intent-view';

/*
 * OpenAPI shapes of what the intent routes answer. Each class `implements` the view the code
 * builds (intent-view.ts), so a field added there without its documentation fails to compile; the
 * intent route test compares the documented property names with real answers.
 */

/** Business names of the journal rows (intent-state-machine.ts, plus the creation row). */
export const INTENT_EVENTS = [
  'intent_created',
  'otp_sent',
  'otp_ok',
  'pin_ok',
  'transaction_completed',
  'transaction_failed',
  'intent_expired',
  'intent_canceled',
] as const;

export class IntentViewDto implements IntentView {
  @ApiProperty({ format: 'uuid', example: '0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e' })
  intentId: string;

  @ApiProperty({ enum: INTENT_TYPES, example: 'TRANSFER' })
  type: IntentType;

  @ApiProperty({ enum: INTENT_STATUSES, example: 'CREATED' })
  status: IntentStatus;

  @ApiProperty({ example: false, description: 'true: the OTP branch (CREATED → OTP_SENT → OTP_VERIFIED → PIN_VERIFIED)' })
  requiresOtp: boolean;

  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a', description: 'the account debited' })
  sourceAccountId: string;

  @ApiProperty({ format: 'uuid', example: '5c4b3a29-1807-4f6e-8d5c-4b3a29180706', description: 'the account credited' })
  destinationAccountId: string;

  @ApiProperty({ type: 'integer', example: 5_000, minimum: 1, description: 'integer, smallest unit of the currency' })
  amount: number;

  @ApiProperty({ type: 'integer', example: 50, minimum: 0, description: 'integer, smallest unit; paid by the source on top of amount' })
  fee: number;

  @ApiProperty({
    type: 'integer',
    example: 5_050,
    minimum: 0,
    description: 'amount + fee, frozen on the source while the intent is active; 0 once it ended',
  })
  frozenAmount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: Currency;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'the QR token this intent pays; one active intent per token',
  })
  qrToken: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Loyer novembre' })
  description: string | null;

  @ApiProperty({
    example: 'a1b2c3d4-0000-4000-8000-000000000001',
    description: 'the initiator (auth user id), whose PIN proof PIN_VERIFIED needs',
  })
  initiatedBy: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'OTP branch only: the user whose OTP proof OTP_VERIFIED needs',
  })
  otpUserId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'set when SUCCEEDED' })
  transactionId: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: "the transaction's reference, set when SUCCEEDED" })
  referenceId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'why the intent FAILED (an error code or the reason given with the move)',
  })
  failureReason: string | null;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-23T10:15:00.000Z',
    description: 'after this, the sweeper moves an active intent to EXPIRED',
  })
  expiresAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:00.000Z' })
  updatedAt: string;
}

export class IntentEventViewDto implements IntentEventView {
  @ApiProperty({ format: 'uuid', example: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b' })
  id: string;

  @ApiProperty({ enum: INTENT_STATUSES, nullable: true, example: 'CREATED', description: 'null on the intent_created row' })
  fromStatus: IntentStatus | null;

  @ApiProperty({ enum: INTENT_STATUSES, example: 'PIN_VERIFIED' })
  toStatus: IntentStatus;

  @ApiProperty({ enum: INTENT_EVENTS, example: 'pin_ok' })
  event: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'a1b2c3d4-0000-4000-8000-000000000001',
    description: 'the actor id given with the move',
  })
  actorId: string | null;

  @ApiProperty({ type: String, nullable: true, example: '196.202.10.4' })
  ipAddress: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'MoMoApp/3.2 (Android 14)' })
  userAgent: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { frozenAmount: 5_050, qrLocked: false },
    description: 'what the move recorded, for example the frozen amount and QR lock on creation',
  })
  metadata: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:02.000Z' })
  createdAt: string;
}
