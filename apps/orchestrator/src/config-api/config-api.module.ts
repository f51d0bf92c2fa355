import { Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals/approvals.module';
import { ConfigChangeHandler } from './config-change.handler';
import { ConfigChangeSubmitter } from './config-change.submitter';
import { ConfigApiController } from './config-api.controller';
import { ConfigSectionRegistry } from './config-section-registry';
import { ConfigVersionsController } from './config-versions.controller';
import { ConfigVersionsService } from './config-versions.service';

/**
 * The configuration service: `/api/config/*` and the versioned store behind it
 * (docs/fees-and-limits.md "Versioned configuration"). Changes go through the maker-checker engine
 * (the CONFIG_CHANGE handler is registered here). Each section's folder registers its section
 * (ConfigSectionRegistry) and serves its own routes with ConfigChangeSubmitter, so this module
 * imports none of them.
 */
@Module({
  imports: [ApprovalsModule],
  controllers: [ConfigApiController, ConfigVersionsController],
  providers: [ConfigVersionsService, ConfigChangeHandler, ConfigSectionRegistry, ConfigChangeSubmitter],
  exports: [ConfigVersionsService, ConfigSectionRegistry, ConfigChangeSubmitter],
})
export class ConfigApiModule {}
