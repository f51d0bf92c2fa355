import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module';
import { PricingController } from './pricing.controller';
import { PricingService } from './pricing.service';

/** Fees and agent commissions. The intent flow uses `PricingService` (quote at create, requote at confirm). */
@Module({
  imports: [ConfigApiModule],
  controllers: [PricingController],
  providers: [PricingService],
  exports: [PricingService],
})
export class PricingModule {}
