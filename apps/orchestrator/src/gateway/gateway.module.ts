import { Module } from '@nestjs/common';
import { CONFIG } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { PlatformHealthController } from './platform-health.controller';
import { UPSTREAMS, createUpstreams } from './upstreams';

@Module({
  controllers: [PlatformHealthController],
  providers: [{ provide: UPSTREAMS, inject: [CONFIG], useFactory: (config: OrchestratorConfig) => createUpstreams(config) }],
  exports: [UPSTREAMS],
})
export class GatewayModule {}
