import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { PageCursorField, PageLimitField } from '../../../common/page-query.fields';
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

  @PageCursorField()
  cursor?: string;

  @PageLimitField()
  limit?: number;
}
