import { Module } from '@nestjs/common';
import { ApprovalsModule } from '../approvals/approvals.module';
import { ConfigChangeHandler } from './config-change.handler';
import { ConfigApiController } from './config-api.controller';
import { ConfigVersionsController } from './config-versions.controller';
import { ConfigVersionsService } from './config-versions.service';

/**
 * The spec's configuration service: `/api/config/*` and the versioned store behind it. Changes go
 * through the maker-checker engine (the CONFIG_CHANGE handler is registered here).
 */
@Module({
  imports: [ApprovalsModule],
  controllers: [ConfigApiController, ConfigVersionsController],
  providers: [ConfigVersionsService, ConfigChangeHandler],
  exports: [ConfigVersionsService],
})
export class ConfigApiModule {}
