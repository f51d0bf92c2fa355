import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { AppException, AppExceptionFilter, sendError } from '@mm/errors';
import type { BaseConfig } from './config';
import { PlatformHealthService } from './health';
import { createClientErrorHandler } from './client-error';
import { answerExpectHeader } from './expect-continue';
import { answerRouteMissBeforeBody, genRequestId, registerHttpHooks, routeMiss } from './http-hooks';
import { parseJsonBody } from './json-body';
import { PlatformValidationPipe } from './validation.pipe';
import { type InternalListenerAddress, InternalListener, internalListenerOf, setInternalListener } from './internal-listener';
import { type Logger, PinoNestLogger, createLogger } from './logger';
import { MetricsService } from './metrics';
import { strictOpenApiDocument } from './openapi-strict';
import { type PublicSurfaceOptions, publicDocument, restrictPublicListener, trackPublicListener } from './public-surface';
import { RouteRegistry } from './route-registry';
import { StorableTextPipe } from './storable-text.pipe';

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
  /**
   * Set only by an app that faces the Internet (the orchestrator): its listener then serves only
   * these paths, plus the public OpenAPI document at `<prefix>/openapi.json`; `/metrics`, the full
   * document and internal routes move to a second, internal listener (`internalListener`).
   */
  publicSurface?: PublicSurfaceOptions;
  /** where the internal listener binds (see InternalListenerConfig); loopback, ephemeral port by default */
  internalListener?: InternalListenerAddress;
  /**
   * Addresses or CIDRs of the proxies whose X-Forwarded-For sets `req.ip` (Fastify's trustProxy);
   * none by default, so the socket's peer is the client.
   */
  trustedProxies?: string[];
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
    // With no binding left, a route without its own level or serializers shares the app's logger
    // rather than building a child per request (request.log is never mutated, only read).
    childLoggerFactory: (parent: FastifyBaseLogger, _bindings: unknown, childOptions: object) =>
      Object.keys(childOptions).length === 0 ? parent : parent.child({}, childOptions),
    bodyLimit: config.BODY_LIMIT_BYTES,
    ...(options.trustedProxies?.length ? { trustProxy: options.trustedProxies } : {}),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A URL the router cannot even decode (or an over-long parameter) is refused before any hook
    // runs: still the platform's body, code and request id, never Fastify's own FST_ERR_* body.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      reply.header('x-request-id', request.id);
      const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'The request URL is malformed';
      sendError(request, reply, new AppException('BAD_REQUEST', message));
    },
    // Bytes Node's HTTP parser refuses (a control byte in the path, oversized headers) never become
    // a request: answered here, still with the platform body and an X-Request-Id.
    clientErrorHandler: createClientErrorHandler(logger),
  });
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  answerExpectHeader(fastify.server, config.BODY_LIMIT_BYTES);
  const routes = new RouteRegistry();
  routes.attach(fastify);

  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  app.useGlobalPipes(new StorableTextPipe(), new PlatformValidationPipe());
  app.useGlobalFilters(new AppExceptionFilter((req) => routeMiss(req, routes)));

  const metrics = app.get(MetricsService);
  // At the entry point, requests of the internal listener (platform services) keep their correlation id.
  const viaPublicListener = options.publicSurface ? trackPublicListener(fastify) : undefined;
  const trust = options.trustIncomingCorrelationId ?? true;
  registerHttpHooks(fastify, {
    trustIncomingCorrelationId: viaPublicListener && !trust ? (req) => !viaPublicListener(req) : trust,
    metrics,
    routes,
  });

  const health = app.get(PlatformHealthService);
  // Readiness: the database and Redis (a pod that cannot reach them should take no traffic).
  fastify.get('/health', async (_req, reply) => {
    const result = await health.check();
    return reply.status(result.status).send(result.body);
  });
  // Liveness: answered by the event loop alone, so a database or Redis outage never restarts the
  // process (restarting cannot fix them); only a hung or dead process fails it.
  fastify.get('/health/live', async (_req, reply) => reply.send({ status: 'ok' }));
  fastify.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  // The OpenAPI document of the app's own routes, built from its controllers on first request.
  let openapi: Promise<OpenAPIObject> | undefined;
  const fullDocument = (): Promise<OpenAPIObject> => (openapi ??= buildOpenApi(app, options.service));
  fastify.get('/openapi.json', async (_req, reply) => reply.send(await fullDocument()));
  if (viaPublicListener) exposePublicSurface(app, fastify, options, viaPublicListener, fullDocument);
  answerRouteMissBeforeBody(fastify, routes);

  await options.configure?.(app, fastify);
  // After `configure`: the gateway's proxy keeps its own pass-through parser (its plugin scope was
  // created with Fastify's default), and Nest does not register its default JSON parser over this one.
  app.useBodyParser('application/json', { bodyLimit: config.BODY_LIMIT_BYTES }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  await app.init();
  return app;
}

/**
 * One app, two listeners: the public one (Fastify's server, bound by `listen`) restricted to the
 * public surface, and an internal one started with it. Why not a credential on `/metrics` instead:
 * a scraper secret would still leave the internal routes and the full document one bypass away
 * from the Internet, and the internal routes would still depend on the gateway's path matching
 * alone; a listener the Internet cannot reach is the first defence, the service key the second.
 */
function exposePublicSurface(
  app: NestFastifyApplication,
  fastify: FastifyInstance,
  options: AppOptions,
  viaPublicListener: (req: FastifyRequest) => boolean,
  fullDocument: () => Promise<OpenAPIObject>,
): void {
  const surface = options.publicSurface!;
  restrictPublicListener(fastify, surface, viaPublicListener);
  let document: OpenAPIObject | undefined;
  const prefix = options.globalPrefix ? `/${options.globalPrefix.replace(/^\/+|\/+$/g, '')}` : '';
  fastify.get(`${prefix}/openapi.json`, async (_req, reply) => {
    document ??= publicDocument(await fullDocument(), surface);
    return reply.send(surface.extendDocument ? await surface.extendDocument(document) : document);
  });
  const listener = new InternalListener(fastify, options.internalListener ?? { host: '127.0.0.1', port: 0 });
  setInternalListener(app, listener);
  // Started whenever the app listens (tests' `app.listen` included); `startApp` awaits the same
  // promise so that a port already in use fails the boot.
  fastify.addHook('onListen', async () => {
    await listener.start().catch(() => undefined);
  });
  fastify.addHook('onClose', async () => {
    await listener.close();
  });
}

async function buildOpenApi(app: NestFastifyApplication, service: string): Promise<OpenAPIObject> {
  const config = new DocumentBuilder()
    .setTitle(service)
    .setDescription(
      'Errors use one body everywhere: { code, message, errors? (VALIDATION_ERROR only), requestId }. Every response carries X-Request-Id and Server-Timing. ' +
        'JSON bodies: an empty body sent as application/json is no body; nesting deeper than 32 levels is 400 JSON_TOO_DEEP; a __proto__ key (or constructor.prototype) is 400 FORBIDDEN_JSON_KEY; ' +
        'unparsable text is 400 MALFORMED_JSON. An explicit null is a value, not an absent field: it is refused with the field code unless the schema marks the field nullable, ' +
        'and a body that is null is 400 VALIDATION_ERROR (field body, INVALID_OBJECT). Headers above 16 KiB are 431 HEADERS_TOO_LARGE; a method the server does not know is 501 NOT_IMPLEMENTED, a known method on a path that exists without it 405 METHOD_NOT_ALLOWED with Allow; an Expect header other than 100-continue is 417 EXPECTATION_FAILED.',
    )
    .setVersion('1')
    .addBearerAuth()
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Service-Key' }, 'serviceKey')
    .build();
  // Derived from the validation rules, so the document never promises more than the server takes.
  const document = await strictOpenApiDocument(app, SwaggerModule.createDocument(app, config));
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      ErrorBody: {
        type: 'object',
        required: ['code', 'message', 'requestId'],
        // The examples are one real answer: a non-integer amount on a body validated by Nest's pipe.
        properties: {
          code: { type: 'string', description: 'stable SCREAMING_SNAKE code (libs/errors)', example: 'VALIDATION_ERROR' },
          message: {
            type: 'string',
            description: 'for people, not for matching (match on `code`)',
            example: 'amount: amount must be an integer number',
          },
          errors: {
            type: 'array',
            description: 'one entry per faulty field, only on VALIDATION_ERROR',
            items: {
              type: 'object',
              required: ['field', 'code', 'message'],
              properties: {
                field: { type: 'string', description: 'path of the field in the body (`items[0].amount`)', example: 'amount' },
                code: {
                  type: 'string',
                  description: 'the field-level code (a specific one such as INVALID_AMOUNT when the rule names one)',
                  example: 'INVALID_AMOUNT',
                },
                message: { type: 'string', example: 'amount must be an integer number' },
              },
            },
          },
          requestId: {
            type: 'string',
            format: 'uuid',
            description: 'the X-Request-Id of the answer',
            example: '0b7c6f1e-2d4a-4e8b-9c3f-5a6d7e8f9a0b',
          },
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
  const internal = internalListenerOf(app);
  if (internal) {
    const bound = await internal.start();
    logger.info({ host: bound.address, port: bound.port }, `${options.service} internal listener (metrics, internal routes) listening`);
  }

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
