import { Module } from '@nestjs/common';
import { IdentitiesModule } from '../identities/identities.module';
import { CustomerPartiesAdapter } from './customer-parties.adapter';
import { PAYMENT_PARTIES } from './payment-parties.port';

/** The parties of a payment, as the customer module knows them (PAYMENT_PARTIES). */
@Module({
  imports: [IdentitiesModule],
  providers: [{ provide: PAYMENT_PARTIES, useClass: CustomerPartiesAdapter }],
  exports: [PAYMENT_PARTIES],
})
export class PaymentPartiesModule {}
