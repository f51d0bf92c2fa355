import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module';
import { LIMITS_CLOCK, LimitsService } from './limits.service';

/** Amount bounds, customer limits per KYC tier and agent ceilings. The intent flow uses `LimitsService`. */
@Module({
  imports: [ConfigApiModule],
  providers: [LimitsService, { provide: LIMITS_CLOCK, useValue: () => new Date() }],
  exports: [LimitsService],
})
export class LimitsModule {}
