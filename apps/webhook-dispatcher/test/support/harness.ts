import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import pino from 'pino';
import { QUEUES, WEBHOOK_JOBS, type WebhookDeliverJob, webhookJobOptions } from '@mm/contracts';
import { type Logger, bullOptions } from '@mm/platform';
import type { HostResolver } from '../../src/endpoints/host-resolver';
import { webhookDispatcherApp } from '../../src/webhook-dispatcher.app';
import type { WebhookDispatcherConfig } from '../../src/webhook-dispatcher.config';
import { WebhookDispatcherModule } from '../../src/webhook-dispatcher.module';
import { type RunningApp, boot } from '../../../../test/support/boot';
import { type TestDatabase, allowedCallerKey, createTestDatabase, createTestRedis, serviceEnv } from '../../../../test/support/test-env';
import { RecordingReceiver } from './recording-receiver';

/** A logger whose JSON lines the test can read. */
export function captureLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Response bodies are read loosely in tests (the assertions pin their shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface Dispatcher {
  running: RunningApp<WebhookDispatcherConfig>;
  queue: Queue;
  close(): Promise<void>;
  /** what a producer (partners) does */
  enqueue(integrationId: string, overrides?: Partial<WebhookDeliverJob['envelope']>): Promise<WebhookDeliverJob['envelope']>;
  api(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown): Promise<{ status: number; body: Json }>;
  setEndpoint(integrationId: string, url: string): Promise<string>;
  event(eventId: string): Promise<Json>;
  attempts(eventId: string): Promise<Json[]>;
  /** Disables the endpoint straight in the database (as the health check does), through a short-lived admin connection. */
  disableEndpoint(integrationId: string): Promise<void>;
}

/** The SQL that disables an endpoint ($1: its integration id), as the health check leaves it. */
export const DISABLE_ENDPOINT_SQL = `UPDATE webhooks.endpoints SET status = 'disabled', disabled_at = now() WHERE integration_id = $1`;

export async function startDispatcher(
  db: TestDatabase,
  redis: { url: string; prefix: string },
  overrides: Record<string, string | undefined> = {},
  logger?: Logger,
  options: { resolver?: HostResolver } = {},
): Promise<Dispatcher> {
  const env = serviceEnv('webhook-dispatcher', db, redis, {
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_BACKOFF_BASE_MS: '100',
    WEBHOOK_TIMEOUT_MS: '1000',
    DB_POOL_SIZE: '3',
    ...overrides,
  });
  const { resolver } = options;
  const app = resolver
    ? { ...webhookDispatcherApp, module: (c: WebhookDispatcherConfig) => WebhookDispatcherModule.forRoot(c, { resolver }) }
    : webhookDispatcherApp;
  const running = await boot(app, env, { logger });
  const queue = new Queue(QUEUES.webhooks, bullOptions(running.config));
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const res = await running.app.inject({
      method,
      url,
      payload: payload as never,
      headers: { 'x-service-key': allowedCallerKey('webhook-dispatcher', method, url) },
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  return {
    running,
    queue,
    api,
    async close() {
      await queue.close();
      await running.close();
    },
    async enqueue(integrationId, overrides = {}) {
      const envelope = {
        event: 'order.paid',
        id: randomUUID(),
        createdAt: new Date().toISOString(),
        data: { orderId: randomUUID(), transactionId: 'TX-1', amount: 1500, currencyCode: 'XAF', paidAt: new Date().toISOString() },
        ...overrides,
      };
      await queue.add(WEBHOOK_JOBS.deliver, { integrationId, envelope }, webhookJobOptions(envelope.id));
      return envelope;
    },
    async setEndpoint(integrationId, url) {
      const res = await api('PUT', `/internal/webhooks/endpoints/${integrationId}`, { url });
      if (res.status !== 200) throw new Error(`set endpoint: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.secret as string;
    },
    async event(eventId) {
      return (await api('GET', `/internal/webhooks/events/${eventId}`)).body;
    },
    async attempts(eventId) {
      return (await api('GET', `/internal/webhooks/events/${eventId}/attempts`)).body;
    },
    async disableEndpoint(integrationId) {
      const admin = new Client({ connectionString: db.adminUrl });
      await admin.connect();
      try {
        await admin.query(DISABLE_ENDPOINT_SQL, [integrationId]);
      } finally {
        await admin.end();
      }
    },
  };
}

export interface DispatcherFixture {
  db: TestDatabase;
  dispatcher: Dispatcher;
  receiver: RecordingReceiver;
  /** an admin connection to the file's database (only with `admin: true`) */
  admin: Client;
}

export interface DispatcherFixtureOptions {
  /** environment for the dispatcher, over the harness's defaults */
  env?: Record<string, string | undefined>;
  /** the receiver to start (default: one that answers 200 to everything) */
  receiver?: () => RecordingReceiver;
  logger?: Logger;
  /** also open an admin connection to the database */
  admin?: boolean;
}

/**
 * The usual test file's setup, registered in the calling `describe`: its own database copy and
 * Redis namespace, a started receiver, a booted dispatcher (and an admin connection when asked),
 * all torn down after the file. The returned object's fields are set once `beforeAll` has run.
 */
export function useDispatcher(options: DispatcherFixtureOptions = {}): DispatcherFixture {
  const redis = createTestRedis();
  const fixture = {} as DispatcherFixture;
  beforeAll(async () => {
    fixture.db = await createTestDatabase();
    fixture.receiver = await (options.receiver?.() ?? new RecordingReceiver()).start();
    fixture.dispatcher = await startDispatcher(fixture.db, redis, options.env, options.logger);
    if (options.admin) {
      fixture.admin = new Client({ connectionString: fixture.db.adminUrl });
      await fixture.admin.connect();
    }
  });
  afterAll(async () => {
    await fixture.admin?.end();
    await fixture.dispatcher?.close();
    await fixture.receiver?.stop();
    await fixture.db?.drop();
    await redis.flush();
  });
  return fixture;
}

/** Polls until `check` returns a truthy value (or throws after the timeout). */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
