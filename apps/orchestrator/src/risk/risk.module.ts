import { Module, type OnModuleInit } from '@nestjs/common';
import { ApprovalRegistry } from '../approvals/approval-registry';
import { ApprovalsModule } from '../approvals/approvals.module';
import { ConfigApiModule } from '../config-api/config-api.module';
import { BlocklistRemoveHandler } from './blocklist-remove.handler';
import { BlocklistService } from './blocklist.service';
import { RiskConfigController } from './risk-config.controller';
import { RiskConfigSection } from './risk-section';
import { RiskController } from './risk.controller';
import { RiskService } from './risk.service';
import { VelocityService } from './velocity.service';

/**
 * Explicit risk rules, stored decisions and the phone blocklist. The intent flow uses `RiskService`.
 * Lifting a blocklist entry is the maker-checker action BLOCKLIST_REMOVE, registered with the
 * engine when the module starts.
 */
@Module({
  imports: [ConfigApiModule, ApprovalsModule],
  controllers: [RiskConfigController, RiskController],
  providers: [RiskService, BlocklistService, VelocityService, BlocklistRemoveHandler, RiskConfigSection],
  exports: [RiskService],
})
export class RiskModule implements OnModuleInit {
  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly removal: BlocklistRemoveHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.removal);
  }
}
