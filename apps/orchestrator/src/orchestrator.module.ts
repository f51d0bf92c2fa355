import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@mm/platform';
import { ConfigApiController } from './config-api/config-api.controller';
import { GatewayModule } from './gateway/gateway.module';
import type { OrchestratorConfig } from './orchestrator.config';
import { RegistrationController } from './registration/registration.controller';

@Module({})
export class OrchestratorModule {
  static forRoot(config: OrchestratorConfig): DynamicModule {
    return {
      module: OrchestratorModule,
      imports: [
        PlatformModule.forRoot({ service: 'orchestrator', config, database: { schema: 'orchestrator' }, redis: true }),
        GatewayModule,
      ],
      controllers: [ConfigApiController, RegistrationController],
    };
  }
}
