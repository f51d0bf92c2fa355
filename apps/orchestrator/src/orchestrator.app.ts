import type { AppDefinition } from '@mm/platform';
import { registerGateway } from './gateway/gateway';
import { OrchestratorConfig } from './orchestrator.config';
import { OrchestratorModule } from './orchestrator.module';

export const orchestratorApp: AppDefinition<OrchestratorConfig> = {
  service: 'orchestrator',
  Config: OrchestratorConfig,
  module: (config) => OrchestratorModule.forRoot(config),
  options: (config) => ({
    globalPrefix: 'api',
    // The public entry point creates the correlation id of every public request.
    trustIncomingCorrelationId: false,
    configure: (_app, fastify) => registerGateway(fastify, config),
  }),
};
