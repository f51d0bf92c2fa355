import type { AppDefinition } from '@mm/platform';
import { registerApiReference } from './gateway/api-reference';
import { isConsolePath, registerConsole } from './gateway/console-assets';
import { gatewayMounts, registerGateway, registerServiceHealthRoutes } from './gateway/gateway';
import { mergedDocumentProvider } from './gateway/public-document';
import { orchestratorPublicSurface } from './gateway/public-surface';
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
    // behind an ingress controller, the client is the address it saw (TRUSTED_PROXIES)
    trustedProxies: config.TRUSTED_PROXIES,
    // The Internet reaches only the public surface; /metrics, the full document and /api/internal/*
    // are served on the internal listener (INTERNAL_HOST/INTERNAL_PORT).
    // `/api/openapi.json` is one document: the orchestrator's public routes and those it proxies.
    publicSurface: {
      ...orchestratorPublicSurface(config.hzRoutesEnabled),
      // the operators' console (apps/console) is served beside the API it calls
      // and the liveness probe beside the root /health the public surface already allows
      isPublic: (path) =>
        path === '/health/live' || isConsolePath(path) || orchestratorPublicSurface(config.hzRoutesEnabled).isPublic(path),
      extendDocument: mergedDocumentProvider(gatewayMounts(config), { timeoutMs: config.HEALTH_TIMEOUT_MS, ttlMs: 60_000 }),
    },
    configure: async (_app, fastify) => {
      await registerGateway(fastify, config);
      registerApiReference(fastify);
      registerConsole(fastify);
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
