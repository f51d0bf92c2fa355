import { Module } from '@nestjs/common';
import { ApprovalRegistry } from './approval-registry';
import { ApprovalsService } from './approvals.service';

/**
 * The one maker-checker engine of the platform. Modules that own a sensitive action import this
 * module and register an ApprovalHandler with ApprovalRegistry in their onModuleInit.
 */
@Module({
  providers: [ApprovalRegistry, ApprovalsService],
  exports: [ApprovalRegistry, ApprovalsService],
})
export class ApprovalsModule {}
