import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../access/permissions';
import { uuid } from '../../common/validators';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { AuditedRead } from '../../staff-audit/audit-metadata';
import { WorkflowQuery } from './dto/workflow.query';
import { WorkflowPageView, WorkflowView } from './dto/workflow.views';
import { WorkflowsService } from './workflows.service';

/** Registration workflows that are not finished or were undone, with their saga log, for staff. */
@ApiTags('back office: workflows')
@Controller('backoffice/workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Get()
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @AuditedRead({ type: 'workflow' })
  @ApiOperation({
    summary:
      'Registration runs not finished (running, compensating) or undone (compensated, compensation_failed), newest first, each with its saga log',
    description:
      'Filters: kind, state, since (started at or after). Pass nextCursor back as cursor, with the same filters, until it is null. ' +
      'A PIN reset is a single call with nothing to undo and keeps no saga log: it is not listed. Field codes: INVALID_KIND, INVALID_STATE, INVALID_DATE, INVALID_CURSOR, INVALID_LIMIT.',
  })
  @ApiOkResponse({ type: WorkflowPageView })
  @ApiErrors('VALIDATION_ERROR')
  list(@Query() query: WorkflowQuery): Promise<WorkflowPageView> {
    return this.workflows.list(query);
  }

  @Get(':id')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @AuditedRead({ type: 'workflow', param: 'id' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'One workflow run with its saga log (any state)' })
  @ApiOkResponse({ type: WorkflowView })
  @ApiErrors('VALIDATION_ERROR', 'WORKFLOW_NOT_FOUND')
  get(@Param('id', uuid('id')) id: string): Promise<WorkflowView> {
    return this.workflows.get(id.toLowerCase());
  }
}
