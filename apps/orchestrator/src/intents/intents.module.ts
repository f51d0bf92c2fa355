import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module';
import { LedgerClientModule } from '../ledger-client/ledger-client.module';
import { LimitsModule } from '../limits/limits.module';
import { OrchestratorConfig } from '../orchestrator.config';
import { PricingModule } from '../pricing/pricing.module';
import { RiskModule } from '../risk/risk.module';
import { WithdrawalQrModule } from '../withdrawal-qr/withdrawal-qr.module';
import { ActiveConfigReader } from './active-config';
import { AuthConsentClient } from './auth-consent.client';
import { IntentConfirmService } from './intent-confirm.service';
import { IntentCreateService } from './intent-create.service';
import { IntentPlanner } from './intent-planner';
import { IntentStepsService } from './intent-steps.service';
import { IntentsController } from './intents.controller';
import { MerchantQrClient } from './merchant-qr.client';
import { PAYMENT_NOTIFIER } from './payment-notifier.port';
import { PaymentPartiesModule } from '../payment-parties/payment-parties.module';
import { PaymentIntentStore } from './payment-intent.store';
import { PaymentReconciler } from './payment-reconciler.service';
import { PAYMENTS_SETTINGS, paymentsSettings } from '../payment-parties/payments-settings';
import { SmsOutboxNotifier } from './sms-outbox.notifier';

/** The public intents (docs/mobile-api.md "The steps"): create, OTP and PIN steps, confirm, cancel, read. */
@Module({
  imports: [ConfigApiModule, LedgerClientModule, PricingModule, LimitsModule, RiskModule, PaymentPartiesModule, WithdrawalQrModule],
  controllers: [IntentsController],
  providers: [
    { provide: PAYMENTS_SETTINGS, inject: [OrchestratorConfig], useFactory: paymentsSettings },
    { provide: PAYMENT_NOTIFIER, useClass: SmsOutboxNotifier },
    ActiveConfigReader,
    AuthConsentClient,
    MerchantQrClient,
    IntentPlanner,
    PaymentIntentStore,
    IntentCreateService,
    IntentStepsService,
    IntentConfirmService,
    PaymentReconciler,
  ],
  exports: [PaymentIntentStore],
})
export class IntentsModule {}
