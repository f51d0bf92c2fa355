import { Module, type OnModuleInit } from '@nestjs/common';
import { ApprovalRegistry } from '../approvals/approval-registry';
import { ApprovalsModule } from '../approvals/approvals.module';
import { IdentitiesModule } from '../identities/identities.module';
import { SagaLog } from '../workflows/saga-log.service';
import { SagaRunner } from '../workflows/saga-runner.service';
import { HourlyThrottle } from './hourly-throttle';
import { PinResetWorkflow } from './pin-reset.service';
import { RegistrationRecovery } from './registration-recovery.service';
import { RegistrationSteps } from './registration-steps';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';
import { StaffCreateHandler } from './staff-create.handler';
import { StaffCreationService } from './staff-creation.service';

/**
 * The identity workflows (docs/registration.md): registration (a saga with a persisted log and crash recovery) and PIN reset;
 * the creation of compliance officers and administrators as the maker-checker action STAFF_CREATE,
 * registered with the engine when the module starts.
 */
@Module({
  imports: [IdentitiesModule, ApprovalsModule],
  controllers: [RegistrationController],
  providers: [
    HourlyThrottle,
    SagaLog,
    SagaRunner,
    RegistrationSteps,
    RegistrationService,
    RegistrationRecovery,
    PinResetWorkflow,
    StaffCreateHandler,
    StaffCreationService,
  ],
  exports: [RegistrationService, RegistrationRecovery, SagaLog],
})
export class RegistrationModule implements OnModuleInit {
  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly staffCreate: StaffCreateHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.staffCreate);
  }
}
