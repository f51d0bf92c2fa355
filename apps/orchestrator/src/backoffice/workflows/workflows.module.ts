import { Module } from '@nestjs/common';
import { WorkflowsController } from './workflows.controller';
import { WorkflowsService } from './workflows.service';

/** Workflow runs for staff (`/api/backoffice/workflows`), read from the saga log. */
@Module({
  controllers: [WorkflowsController],
  providers: [WorkflowsService],
})
export class BackofficeWorkflowsModule {}
