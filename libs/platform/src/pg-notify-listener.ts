import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { Counter, Gauge } from 'prom-client';
import type { MetricsService } from './metrics';

export interface PgNotifyListenerOptions {
  /** who listens, for pg_stat_activity and the log lines ("ledger outbox wake") */
  name: string;
  /** must reach PostgreSQL itself or a session-mode pooler: a transaction-mode pooler drops LISTEN */
  databaseUrl: string;
  metrics?: MetricsService;
  /** first wait after a lost or failed connection; doubled at each failure up to `maxBackoffMs` */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** a statement this often finds a connection that died without a word (no notification would tell) */
  heartbeatMs?: number;
}

/**
 * One connection of its own that LISTENs on a few channels and calls the handlers of a channel at
 * each notification on it (the payload is not read: a notification only says "look now").
 * PostgreSQL delivers a NOTIFY when the transaction that sent it commits, never when it rolls back.
 *
 * It is a wake-up, not a delivery channel: whoever uses it keeps a poll as well. Notifications
 * sent while the connection is down are lost, so after every (re)connection each handler is called
 * once, as if one had come. The connection reconnects by itself, with a doubling wait (100 ms up
 * to 10 s by default), and a heartbeat statement finds a connection that died silently. Handlers
 * must be cheap and must not throw (they are called from the pg client's event).
 */
export class PgNotifyListener {
  private readonly logger = new Logger('PgNotifyListener');
  private readonly handlers = new Map<string, Array<() => void>>();
  private client?: Client;
  private heartbeat?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private backoffMs: number;
  private started = false;
  private closed = false;
  private connecting?: Promise<void>;
  private readonly wakeups?: Counter<'channel'>;
  private readonly up?: Gauge<'listener'>;

  constructor(private readonly options: PgNotifyListenerOptions) {
    this.backoffMs = options.minBackoffMs ?? 100;
    this.wakeups = options.metrics?.counter('pg_notify_wakeups_total', 'PostgreSQL notifications received, by channel', ['channel']);
    this.up = options.metrics?.gauge('pg_notify_listening', '1 while the LISTEN connection is up', ['listener']);
  }

  /** Calls `handler` at each notification on `channel`. Register before `start`. */
  on(channel: string, handler: () => void): this {
    if (this.started) throw new Error('PgNotifyListener: register handlers before start()');
    const list = this.handlers.get(channel) ?? [];
    list.push(handler);
    this.handlers.set(channel, list);
    return this;
  }

  /** Connects in the background; never throws (a failure is retried). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.connect();
  }

  /** True while LISTEN is in place. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Resolves once listening (or after `timeoutMs`, answering whether it is). For tests and start-up checks. */
  async ready(timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.listening && !this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.listening;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    this.up?.set({ listener: this.options.name }, 0);
    await client?.end().catch(() => undefined);
  }

  private connect(): void {
    if (this.closed || this.connecting) return;
    this.connecting = this.open().finally(() => (this.connecting = undefined));
  }

  private async open(): Promise<void> {
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: this.options.name,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 5_000,
      query_timeout: 5_000,
    });
    // Listeners first: an error event without one would crash the process.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.notify(message.channel));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      this.scheduleRetry(error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoffMs = this.options.minBackoffMs ?? 100;
    this.up?.set({ listener: this.options.name }, 1);
    this.heartbeat = setInterval(
      () => void client.query('SELECT 1').catch((error: unknown) => this.lost(client, error)),
      this.options.heartbeatMs ?? 30_000,
    );
    this.heartbeat.unref();
    // Whatever was committed while nobody listened: one look now.
    for (const channel of this.handlers.keys()) this.notify(channel, false);
  }

  private notify(channel: string, counted = true): void {
    if (counted) this.wakeups?.inc({ channel });
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler();
      } catch (error) {
        this.logger.warn({ err: error, channel }, 'notification handler threw');
      }
    }
  }

  private lost(client: Client, error?: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.up?.set({ listener: this.options.name }, 0);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.scheduleRetry(error);
  }

  private scheduleRetry(error: unknown): void {
    if (this.closed) return;
    const wait = this.backoffMs;
    this.backoffMs = Math.min(wait * 2, this.options.maxBackoffMs ?? 10_000);
    this.logger.warn(
      { err: error, listener: this.options.name, retryInMs: wait },
      'LISTEN connection down: wake-ups wait for it, the poll goes on',
    );
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), wait);
    this.retry.unref();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
