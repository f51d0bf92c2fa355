import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { encodeCursor } from '../../common/cursor';
import { APPROVAL_ACTIONS, APPROVAL_STATUSES, type ApprovalAction, type ApprovalStatus } from '../approval-handler';
import { RISK_CHANGE_PAYLOAD } from './submit-approval.examples';

export const APPROVAL_TARGET_TYPES = ['account', 'transaction', 'agent', 'customer', 'user', 'config', 'integration', 'api-key'] as const;
export const APPROVAL_DECISIONS = ['APPROVE', 'REJECT'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export class ApprovalListQuery {
  @ApiProperty({ required: false, enum: APPROVAL_STATUSES, description: 'a pending request past its expiry counts as EXPIRED' })
  @OptionalField()
  @IsIn(APPROVAL_STATUSES)
  status?: ApprovalStatus;

  @ApiProperty({ required: false, enum: APPROVAL_ACTIONS })
  @OptionalField()
  @IsIn(APPROVAL_ACTIONS)
  action?: ApprovalAction;

  @ApiProperty({ required: false, description: "the maker's user id", example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', maxLength: 200 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  makerId?: string;

  @ApiProperty({ required: false, enum: APPROVAL_TARGET_TYPES })
  @OptionalField()
  @IsIn(APPROVAL_TARGET_TYPES)
  targetType?: string;

  @ApiProperty({ required: false, example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92', maxLength: 200 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  targetId?: string;

  @ApiProperty({ required: false, description: 'only requests created before this instant (their age)', example: '2026-11-28T09:00:00Z' })
  @OptionalField()
  @IsInstant()
  createdBefore?: string;

  @ApiProperty({ required: false, minimum: 1, maximum: 100, default: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiProperty({
    required: false,
    description: 'nextCursor of the previous page (field code INVALID_CURSOR)',
    maxLength: 200,
    example: encodeCursor(['2026-11-28T09:12:45.120Z', '0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d']),
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class SubmitApprovalDto {
  @ApiProperty({ enum: APPROVAL_ACTIONS, example: 'CONFIG_CHANGE' })
  @IsIn(APPROVAL_ACTIONS)
  action: ApprovalAction;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "the action's payload, checked by its handler: its fields depend on the action (the route's examples show one per action; docs/approvals.md lists each shape)",
    example: RISK_CHANGE_PAYLOAD,
  })
  @IsDefined()
  @IsObject()
  payload: Record<string, unknown>;

  @ApiProperty({
    description: 'why (kept with the request and shown to the checker)',
    example: 'Agreed with finance, ticket 4821',
    minLength: 3,
    maxLength: 500,
  })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  @Matches(/\S/, { message: 'must not be blank' })
  reason: string;
}

export class ApproveDto {
  @ApiProperty({ required: false, description: "the checker's note", example: 'Checked against the bank statement', maxLength: 500 })
  @OptionalField()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class RejectDto {
  @ApiProperty({ description: 'why the request is refused (shown to the maker)', example: 'Wrong amount', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  @Matches(/\S/, { message: 'must not be blank' })
  reason: string;
}

export class DecisionsDto {
  @ApiProperty({
    type: [String],
    description: 'the requests to decide, each once',
    minItems: 1,
    maxItems: 50,
    example: ['0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  ids: string[];

  @ApiProperty({ enum: APPROVAL_DECISIONS, example: 'APPROVE' })
  @IsIn(APPROVAL_DECISIONS)
  decision: ApprovalDecision;

  @ApiProperty({ description: 'the reason, kept with every decision', example: 'Month-end review', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  @Matches(/\S/, { message: 'must not be blank' })
  reason: string;
}
