import { Module } from '@nestjs/common';
import { ConfigApiController } from './config-api.controller';
import { ConfigVersionsController } from './config-versions.controller';
import { ConfigVersionsService } from './config-versions.service';

/** The spec's configuration service: `/api/config/*` and the versioned store behind it. */
@Module({
  controllers: [ConfigApiController, ConfigVersionsController],
  providers: [ConfigVersionsService],
  exports: [ConfigVersionsService],
})
export class ConfigApiModule {}
