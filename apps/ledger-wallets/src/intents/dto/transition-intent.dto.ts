import type { TransitionRequest } from '@mm/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { INTENT_STATUSES, type IntentStatus } from '../intent-state-machine';
import { ActorDto } from './actor.dto';
import { ExecutionContextDto } from './execution-context.dto';

/** `POST /v1/internal/intents/:id/transition` */
export class TransitionIntentDto {
  @IsIn(INTENT_STATUSES)
  toStatus: IntentStatus;

  // ValidateNested alone skips an absent value: the actor is required, and an object (not an array of them).
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ActorDto)
  actor: ActorDto;

  /** required when toStatus is SUCCEEDED (400 EXECUTION_CONTEXT_REQUIRED otherwise) */
  @ApiProperty({
    required: false,
    type: () => ExecutionContextDto,
    description:
      'Required when toStatus is SUCCEEDED (400 EXECUTION_CONTEXT_REQUIRED otherwise): the accounts, amount and currency the ledger checks against the frozen intent (400 EXECUTION_CONTEXT_MISMATCH), with the fee and commission to book.',
  })
  @OptionalField()
  @ValidateNested()
  @Type(() => ExecutionContextDto)
  executionContext?: ExecutionContextDto;

  /** failure or cancellation reason, kept in the event metadata */
  @OptionalField()
  @IsString()
  @MaxLength(500)
  reason?: string;

  @OptionalField()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiProperty({
    required: false,
    maxLength: 4096,
    example: 'eyJhbGciOiJFZERTQSIsInR5cCI6ImNvbnNlbnQrand0Iiwia2lkIjoiLi4uIn0.eyJpbnRlbnRfaWQiOiIuLi4ifQ.c2ln',
    description:
      "Required when toStatus is OTP_VERIFIED or PIN_VERIFIED: the consent proof auth returned from verify-otp / check-pin called with this intent's id (JWT, typ consent+jwt). Single use. Missing, invalid, expired, for another intent/step/user, or already used: 403 CONSENT_PROOF_REQUIRED / _INVALID / _EXPIRED / _MISMATCH / _REPLAYED, and the intent does not move. Not part of the idempotency request hash.",
  })
  @OptionalField()
  @IsString()
  @MaxLength(4096)
  consentProof?: string;
}

/** Compile-time check: every request the contract allows fits this DTO (fails to build when they drift). */
export type TransitionAcceptsContract = Accepts<TransitionRequest, TransitionIntentDto>;
type Accepts<Request extends Dto, Dto> = Request;
