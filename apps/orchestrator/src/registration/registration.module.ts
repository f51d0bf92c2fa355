import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/customers.module';
import { SagaLog } from '../workflows/saga-log.service';
import { SagaRunner } from '../workflows/saga-runner.service';
import { HourlyThrottle } from './hourly-throttle';
import { PinResetWorkflow } from './pin-reset.service';
import { RegistrationRecovery } from './registration-recovery.service';
import { RegistrationSteps } from './registration-steps';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

/** Spec 3's workflows: registration (a saga with a persisted log and crash recovery) and PIN reset. */
@Module({
  imports: [CustomersModule],
  controllers: [RegistrationController],
  providers: [HourlyThrottle, SagaLog, SagaRunner, RegistrationSteps, RegistrationService, RegistrationRecovery, PinResetWorkflow],
  exports: [RegistrationService, RegistrationRecovery, SagaLog],
})
export class RegistrationModule {}
