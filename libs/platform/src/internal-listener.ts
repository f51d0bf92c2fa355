import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import type { FastifyInstance } from 'fastify';
import { answerExpectHeader } from './expect-continue';

/**
 * Where a public-facing app (the orchestrator) serves what must not face the Internet: `/metrics`,
 * its full OpenAPI document and its `/api/internal/*` routes. Read by `bootApp` from the same
 * environment as the app's own config; ignored by apps without a public surface.
 */
export class InternalListenerConfig {
  /** loopback by default; in compose, the container's interfaces (the port is never published) */
  @IsString()
  INTERNAL_HOST: string = '127.0.0.1';

  /** unset: PORT + 100 (3100 for the orchestrator), or an ephemeral port when PORT is 0 (tests) */
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(65535)
  INTERNAL_PORT?: number;
}

export interface InternalListenerAddress {
  host: string;
  port: number;
}

export function internalListenerAddress(config: InternalListenerConfig, publicPort: number): InternalListenerAddress {
  return { host: config.INTERNAL_HOST, port: config.INTERNAL_PORT ?? (publicPort === 0 ? 0 : publicPort + 100) };
}

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A second HTTP server handing its requests to the same Fastify instance (same routes, hooks,
 * logging, metrics and error bodies): one Nest app, two doors. The public door is Fastify's own
 * server; which door a request came through is known by its socket (see public-surface.ts).
 */
export class InternalListener {
  private readonly server: Server;
  private starting?: Promise<AddressInfo>;

  constructor(
    fastify: FastifyInstance,
    private readonly address: InternalListenerAddress,
  ) {
    // Fastify's request handler is the listener it attached when it created its server.
    const handlers = fastify.server.listeners('request') as RequestHandler[];
    this.server = createServer((req, res) => {
      for (const handle of handlers) handle(req, res);
    });
    // Requests Node's parser refuses get the same platform error body on both doors (Node's own
    // answer would be an empty 400).
    for (const onClientError of fastify.server.listeners('clientError')) {
      this.server.on('clientError', onClientError as (error: Error, socket: Duplex) => void);
    }
    if (fastify.initialConfig.bodyLimit !== undefined) answerExpectHeader(this.server, fastify.initialConfig.bodyLimit);
    this.server.keepAliveTimeout = fastify.server.keepAliveTimeout;
    this.server.requestTimeout = fastify.server.requestTimeout;
  }

  /** Binds once; every caller gets the same outcome (a busy port fails the boot in `startApp`). */
  start(): Promise<AddressInfo> {
    this.starting ??= new Promise<AddressInfo>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.address.port, this.address.host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
    return this.starting;
  }

  get listening(): boolean {
    return this.server.listening;
  }

  /** `http://host:port` once listening. */
  get url(): string {
    const bound = this.server.address() as AddressInfo | null;
    if (!bound) throw new Error('the internal listener is not listening');
    return `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  }

  /** Stops accepting, closes idle keep-alive connections, waits for in-flight requests. */
  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}

const listeners = new WeakMap<object, InternalListener>();

export function setInternalListener(app: object, listener: InternalListener): void {
  listeners.set(app, listener);
}

/** The internal listener of an app created with a public surface (tests read its `url`). */
export function internalListenerOf(app: object): InternalListener | undefined {
  return listeners.get(app);
}
