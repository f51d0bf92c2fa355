import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/customers.module';
import { CustomerPartiesAdapter } from './customer-parties.adapter';
import { PAYMENT_PARTIES } from './payment-parties.port';

/** The parties of a payment, as the customer module knows them (PAYMENT_PARTIES). */
@Module({
  imports: [CustomersModule],
  providers: [{ provide: PAYMENT_PARTIES, useClass: CustomerPartiesAdapter }],
  exports: [PAYMENT_PARTIES],
})
export class PaymentPartiesModule {}
