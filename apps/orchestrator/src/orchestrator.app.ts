import type { AppDefinition } from '@mm/platform';
import { registerGateway, registerServiceHealthRoutes } from './gateway/gateway';
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
    configure: async (_app, fastify) => {
      await registerGateway(fastify, config);
      if (config.hzRoutesEnabled) {
        registerServiceHealthRoutes(
          fastify,
          {
            auth: config.AUTH_URL,
            partners: config.PARTNERS_URL,
            'ledger-wallets': config.LEDGER_URL,
            'webhook-dispatcher': config.WEBHOOK_DISPATCHER_URL,
          },
          config.HEALTH_TIMEOUT_MS,
        );
      }
    },
  }),
};
