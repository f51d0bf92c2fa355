import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import pino from 'pino';
import { QUEUES, WEBHOOK_JOBS, type WebhookDeliverJob, webhookJobOptions } from '@mm/contracts';
import { type Logger, bullOptions } from '@mm/platform';
import type { HostResolver } from '../../src/endpoints/host-resolver';
import { webhookDispatcherApp } from '../../src/webhook-dispatcher.app';
import type { WebhookDispatcherConfig } from '../../src/webhook-dispatcher.config';
import { WebhookDispatcherModule } from '../../src/webhook-dispatcher.module';
import { type RunningApp, boot } from '../../../../test/support/boot';
import { type TestDatabase, allowedCallerKey, serviceEnv } from '../../../../test/support/test-env';

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
}

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
  };
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
