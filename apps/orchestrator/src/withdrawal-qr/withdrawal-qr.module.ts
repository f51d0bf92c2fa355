import { Module } from '@nestjs/common';
import { PaymentPartiesModule } from '../payment-parties/payment-parties.module';
import { PAYMENTS_SETTINGS, paymentsSettings } from '../payment-parties/payments-settings';
import { OrchestratorConfig } from '../orchestrator.config';
import { WithdrawalQrController } from './withdrawal-qr.controller';
import { WithdrawalQrService } from './withdrawal-qr.service';

/** Withdrawal codes: issued to customers, resolved and consumed by the cash-out intent. */
@Module({
  imports: [PaymentPartiesModule],
  controllers: [WithdrawalQrController],
  providers: [{ provide: PAYMENTS_SETTINGS, inject: [OrchestratorConfig], useFactory: paymentsSettings }, WithdrawalQrService],
  exports: [WithdrawalQrService],
})
export class WithdrawalQrModule {}
