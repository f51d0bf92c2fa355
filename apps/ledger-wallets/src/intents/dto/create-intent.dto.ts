import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsIn, IsObject, IsString, IsUUID, MaxLength, ValidateNested } from 'class-validator';
import { type CreateIntentRequest, INTENT_TYPES, type IntentType } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { ActorDto } from './actor.dto';
import { IsMoney } from './money';
import { TransferTermsDto } from './transfer-terms.dto';

export { INTENT_TYPES, type IntentType } from '@mm/contracts';

/**
 * `POST /v1/internal/intents`. The orchestrator has already resolved the recipient, checked limits
 * and risk and computed the fee: the ledger freezes `amount + fee` on the source account.
 * CASH_IN: source = the agent's float account, destination = the customer's account;
 * CASH_OUT: source = the customer's account, destination = the agent's account.
 */
export class CreateIntentDto extends TransferTermsDto {
  /** UUID v4 from the client; required (missing → 400 IDEMPOTENCY_KEY_MISSING) and unique */
  @ApiProperty({
    required: true,
    example: '7d9f0c1a-3b2e-4f5d-8a6c-9e0b1d2c3f4a',
    description:
      'UUID v4 chosen by the caller, unique per intent; missing: 400 IDEMPOTENCY_KEY_MISSING (the service checks it, not the pipe)',
  })
  @OptionalField()
  @IsUUID('4')
  idempotencyKey?: string;

  @IsIn(INTENT_TYPES)
  type: IntentType;

  /** fee computed by the orchestrator at creation; frozen together with the amount */
  @OptionalField()
  @IsMoney(0)
  fee?: number;

  /** cash-out with a non-fresh QR: the OTP branch of the state machine */
  @OptionalField()
  @IsBoolean()
  requiresOtp?: boolean;

  /** QR used for recipient resolution; locked while the intent is active */
  @OptionalField()
  @IsString()
  @MaxLength(200)
  qrToken?: string;

  @OptionalField()
  @IsString()
  @MaxLength(500)
  description?: string;

  @OptionalField()
  @IsString()
  @MaxLength(200)
  agentId?: string;

  /** the initiator: its `id` must be the initiator's auth user id, the only user whose PIN proof moves the intent to PIN_VERIFIED */
  // ValidateNested alone skips an absent value: the actor is required, and an object (not an array of them).
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ActorDto)
  actor: ActorDto;

  @ApiProperty({
    required: false,
    maxLength: 200,
    example: '0b6f7c1e-2d4a-4f3b-8e9c-5a1d2c3b4e5f',
    description:
      'Required exactly when requiresOtp is true (400 CONSENT_OTP_USER_REQUIRED otherwise): the auth user id of the customer the OTP goes to. Only an OTP consent proof issued to this user moves the intent to OTP_VERIFIED.',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  otpUserId?: string;

  @OptionalField()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiProperty({
    required: false,
    format: 'date-time',
    example: '2026-11-23T10:05:30.000Z',
    description:
      "An earlier end for this intent than the ledger's own lifetime (LEDGER_INTENT_TTL_SECONDS): the intent expires at whichever comes first. A partner order's payment deadline, so that a payment cannot complete once the order can no longer be paid. Already past: 400 INTENT_EXPIRED, nothing held.",
  })
  @OptionalField()
  @IsInstant()
  expiresAt?: string;

  @ApiProperty({
    required: false,
    format: 'date-time',
    example: '2026-11-23T10:02:00.000Z',
    description:
      "The latest time at which this intent may still be created (not its end: see expiresAt). A first request that reaches the ledger at or after it is refused with 400 INTENT_CREATE_DEADLINE_PASSED and holds nothing. A replay of a creation that already happened (same idempotencyKey and body, within the idempotency window) still answers the stored 201, whenever it arrives. The orchestrator sends the expiry of a customer's withdrawal code here, so a cash-out that skips the OTP on the strength of that code is never created after the code's lifetime.",
  })
  @OptionalField()
  @IsInstant()
  createBy?: string;

  @ApiProperty({
    required: false,
    minimum: 0,
    example: 500000,
    description:
      "The most the destination account's balance may reach, in minor units (the payee's balance cap, from the orchestrator's limits). Its balance plus the amount already above it: 422 LIMIT_BALANCE_CAP_EXCEEDED, nothing held. Nothing is reserved on the destination: the cap that binds is the confirm's (executionContext.payeeBalanceCap).",
  })
  @OptionalField()
  @IsMoney(0)
  payeeBalanceCap?: number;
}

/** Compile-time check: every request the contract allows fits this DTO (fails to build when they drift). */
export type CreateIntentAcceptsContract = Accepts<CreateIntentRequest, CreateIntentDto>;
type Accepts<Request extends Dto, Dto> = Request;
