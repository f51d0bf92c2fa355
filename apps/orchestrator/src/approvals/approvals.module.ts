import { Module } from '@nestjs/common';
import { ApprovalRegistry } from './approval-registry';
import { ApprovalRequestsStore } from './approval-requests.store';
import { ApprovalSweep } from './approval-sweep.service';
import { ApprovalsController } from './approvals.controller';
import { ApprovalsService } from './approvals.service';

/**
 * The one maker-checker engine of the platform. Modules that own a sensitive action import this
 * module and register an ApprovalHandler with ApprovalRegistry in their onModuleInit.
 */
@Module({
  controllers: [ApprovalsController],
  providers: [ApprovalRegistry, ApprovalRequestsStore, ApprovalsService, ApprovalSweep],
  exports: [ApprovalRegistry, ApprovalsService],
})
export class ApprovalsModule {}
