import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module';
import { PricingConfigController } from './pricing-config.controller';
import { PricingConfigSection } from './pricing-section';
import { PricingController } from './pricing.controller';
import { PricingService } from './pricing.service';

/**
 * Fees and agent commissions. The intent flow uses `PricingService` (quote at create, requote at
 * confirm); the pricing section of the configuration (and its rule against the limits) is registered
 * with the config API here.
 */
@Module({
  imports: [ConfigApiModule],
  controllers: [PricingConfigController, PricingController],
  providers: [PricingService, PricingConfigSection],
  exports: [PricingService],
})
export class PricingModule {}
