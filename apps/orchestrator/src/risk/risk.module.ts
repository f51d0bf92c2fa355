import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module';
import { BlocklistService } from './blocklist.service';
import { RiskController } from './risk.controller';
import { RiskService } from './risk.service';
import { VelocityService } from './velocity.service';

/** Explicit risk rules, stored decisions and the phone blocklist. The intent flow uses `RiskService`. */
@Module({
  imports: [ConfigApiModule],
  controllers: [RiskController],
  providers: [RiskService, BlocklistService, VelocityService],
  exports: [RiskService],
})
export class RiskModule {}
