import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module';
import { LimitsConfigController } from './limits-config.controller';
import { LimitsConfigSection } from './limits-section';
import { DATABASE_CLOCK, LIMITS_CLOCK, LimitsService } from './limits.service';

/** Amount bounds, customer limits per KYC tier and agent ceilings. The intent flow uses `LimitsService`. */
@Module({
  imports: [ConfigApiModule],
  controllers: [LimitsConfigController],
  providers: [LimitsService, LimitsConfigSection, { provide: LIMITS_CLOCK, useValue: DATABASE_CLOCK }],
  exports: [LimitsService],
})
export class LimitsModule {}
