import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { encodeOperationCursor } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { REGISTRATION_KINDS, type RegistrationKind } from '../../../registration/registration.types';

/** The states of a workflow run that is not finished (running, compensating) or was undone (compensated, compensation_failed). */
export const OPEN_WORKFLOW_STATES = ['running', 'compensating', 'compensated', 'compensation_failed'] as const;
export type OpenWorkflowState = (typeof OPEN_WORKFLOW_STATES)[number];

/** `GET /api/backoffice/workflows`. */
export class WorkflowQuery {
  @ApiPropertyOptional({ enum: REGISTRATION_KINDS, description: 'the workflow (field code INVALID_KIND)' })
  @OptionalField()
  @IsIn(REGISTRATION_KINDS, { context: { code: 'INVALID_KIND' } })
  kind?: RegistrationKind;

  @ApiPropertyOptional({
    enum: OPEN_WORKFLOW_STATES,
    description: 'one state; without it, all four (field code INVALID_STATE). Runs that succeeded are not listed',
  })
  @OptionalField()
  @IsIn(OPEN_WORKFLOW_STATES, { context: { code: 'INVALID_STATE' } })
  state?: OpenWorkflowState;

  @ApiPropertyOptional({ example: '2026-11-01T00:00:00.000Z', description: 'started at or after this instant (field code INVALID_DATE)' })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  since?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'nextCursor of the previous page, with the same filters (field code INVALID_CURSOR)',
    example: encodeOperationCursor('2026-11-22T10:00:00.123456Z', '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b'),
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20, description: 'page size (field code INVALID_LIMIT)' })
  @OptionalField()
  @Transform(({ value }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value))
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;
}
