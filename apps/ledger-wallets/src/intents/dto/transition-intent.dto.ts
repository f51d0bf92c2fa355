import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { INTENT_STATUSES, type IntentStatus } from '../intent-state-machine';
import { ActorDto } from './actor.dto';
import { ExecutionContextDto } from './execution-context.dto';

/** `POST /v1/internal/intents/:id/transition` */
export class TransitionIntentDto {
  @IsIn(INTENT_STATUSES)
  toStatus: IntentStatus;

  @ValidateNested()
  @Type(() => ActorDto)
  actor: ActorDto;

  /** required when toStatus is SUCCEEDED (400 EXECUTION_CONTEXT_REQUIRED otherwise) */
  @IsOptional()
  @ValidateNested()
  @Type(() => ExecutionContextDto)
  executionContext?: ExecutionContextDto;

  /** failure or cancellation reason, kept in the event metadata */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}
