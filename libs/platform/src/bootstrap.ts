import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { AppExceptionFilter, validationExceptionFactory } from '@mm/errors';
import type { BaseConfig } from './config';
import { PlatformHealthService } from './health';
import { genRequestId, registerHttpHooks, routeMiss } from './http-hooks';
import { type Logger, PinoNestLogger, createLogger } from './logger';
import { MetricsService } from './metrics';
import { RouteRegistry } from './route-registry';

export interface AppOptions {
  service: string;
  config: BaseConfig;
  /** global path prefix of the app's own routes (`/health` and `/metrics` stay at the root) */
  globalPrefix?: string;
  /** false only at the public entry point, which creates a correlation id per public request */
  trustIncomingCorrelationId?: boolean;
  /** override the logger (tests capture lines) */
  logger?: Logger;
  /** hook to register Fastify plugins (the gateway's proxy) before Nest's routes */
  configure?: (app: NestFastifyApplication, fastify: FastifyInstance) => Promise<void> | void;
}

/**
 * The one bootstrap of all five apps: Fastify, pino, ids and Server-Timing, validation, the error
 * body, `/health` and `/metrics` at the root. Returns an initialised app that is not listening yet.
 */
export async function createApp(module: unknown, options: AppOptions): Promise<NestFastifyApplication> {
  const { config } = options;
  const logger = options.logger ?? createLogger({ service: options.service, level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    // One log line per request is written by our onResponse hook (with route, status, duration).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: genRequestId,
    // The ids come from the async context (logger mixin); a child binding would print them twice.
    childLoggerFactory: (parent: FastifyBaseLogger, _bindings: unknown, childOptions: object) => parent.child({}, childOptions),
    bodyLimit: config.BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  const routes = new RouteRegistry();
  routes.attach(fastify);

  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: validationExceptionFactory,
      validationError: { target: false, value: false },
    }),
  );
  app.useGlobalFilters(new AppExceptionFilter((req) => routeMiss(req, routes)));

  const metrics = app.get(MetricsService);
  registerHttpHooks(fastify, { trustIncomingCorrelationId: options.trustIncomingCorrelationId ?? true, metrics, routes });

  const health = app.get(PlatformHealthService);
  fastify.get('/health', async (_req, reply) => {
    const result = await health.check();
    return reply.status(result.status).send(result.body);
  });
  fastify.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  // The OpenAPI document of the app's own routes, built from its controllers on first request.
  let openapi: OpenAPIObject | undefined;
  fastify.get('/openapi.json', async (_req, reply) => {
    openapi ??= buildOpenApi(app, options.service);
    return reply.send(openapi);
  });

  await options.configure?.(app, fastify);
  await app.init();
  return app;
}

function buildOpenApi(app: NestFastifyApplication, service: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle(service)
    .setDescription(
      'Errors use one body everywhere: { code, message, errors? (VALIDATION_ERROR only), requestId }. Every response carries X-Request-Id and Server-Timing.',
    )
    .setVersion('1')
    .addBearerAuth()
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Service-Key' }, 'serviceKey')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      ErrorBody: {
        type: 'object',
        required: ['code', 'message', 'requestId'],
        properties: {
          code: { type: 'string', description: 'stable SCREAMING_SNAKE code (libs/errors)' },
          message: { type: 'string' },
          errors: {
            type: 'array',
            description: 'one entry per faulty field, only on VALIDATION_ERROR',
            items: {
              type: 'object',
              required: ['field', 'code', 'message'],
              properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
            },
          },
          requestId: { type: 'string', format: 'uuid' },
        },
      },
    },
  };
  return document;
}

/**
 * createApp, listen, and stop gracefully on SIGTERM/SIGINT: stop accepting, finish in-flight
 * requests, close pools and workers (Nest shutdown hooks), then exit; exit 1 past SHUTDOWN_TIMEOUT_MS.
 */
export async function startApp(module: unknown, options: AppOptions): Promise<NestFastifyApplication> {
  const app = await createApp(module, options);
  const logger = app.getHttpAdapter().getInstance().log as Logger;
  await app.listen(options.config.PORT, options.config.HOST);
  logger.info({ host: options.config.HOST, port: options.config.PORT }, `${options.service} listening`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${options.service} shutting down`);
    setTimeout(() => {
      logger.error({ timeoutMs: options.config.SHUTDOWN_TIMEOUT_MS }, 'graceful shutdown timed out');
      process.exit(1);
    }, options.config.SHUTDOWN_TIMEOUT_MS).unref();
    app.close().then(
      () => {
        logger.info(`${options.service} stopped`);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return app;
}

/** main.ts helper: a bad config or a failed boot prints one clear message and exits 1. */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}
