import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Client, type QueryResult, type QueryResultRow } from 'pg';
import type { Counter, Gauge } from 'prom-client';
import type { JobLease } from './job-lease';
import type { MetricsService } from './metrics';

export interface PostgresJobLeaseOptions {
  /** the service's name: a lease's key is "<service>:<job>" */
  service: string;
  /** the service's own DATABASE_URL; must reach PostgreSQL itself or a session-mode pooler, never a transaction-mode one */
  databaseUrl: string;
  metrics?: MetricsService;
  /** a lease query taking longer than this drops the connection (and every lease with it) */
  queryTimeoutMs?: number;
  /** after a failed connection attempt, none again for this long */
  retryAfterMs?: number;
  /**
   * PostgreSQL ends the lease session after this long without a statement (`idle_session_timeout`),
   * freeing its locks: a process that hangs (stopped, its event loop blocked) cannot keep its leases.
   * A heartbeat every third of it keeps a live process's session.
   */
  idleTimeoutMs?: number;
}

/** The lock's key: a stable 64-bit hash of "<service>:<job>". */
const KEY = `hashtextextended($1, 0)`;
const TAKE = `SELECT pg_try_advisory_lock(${KEY}) AS held`;
/** Whether this session holds the lock: a session lock lives exactly as long as its connection. */
const CONFIRM = `SELECT EXISTS (
  SELECT 1 FROM pg_locks
   WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND objsubid = 1
     AND classid = ((k >> 32) & 4294967295)::oid AND objid = (k & 4294967295)::oid) AS held
  FROM (SELECT ${KEY} AS k) AS lease`;
const GIVE_BACK = `SELECT pg_advisory_unlock(${KEY})`;

/**
 * Job leases as PostgreSQL session advisory locks, one per job, all on ONE connection of their own
 * (not from the app's pool: a pooled connection goes back to the pool, a lease must stay on its
 * session). The process holds a job's lease while its connection holds the job's lock, so a
 * replica killed outright loses its leases as soon as PostgreSQL sees the socket close (TCP
 * keepalive finds a vanished peer, `idle_session_timeout` a hung one), and another replica takes
 * them when it next asks (PeriodicJob says which slots a lease taken then may run).
 *
 * The connection failing in any way (an error, its end, a lease query past `queryTimeoutMs`) drops
 * every lease at once, before any further question is answered: nothing runs until a lock is taken
 * again on a new connection. A lease held is confirmed by one query at every boundary (the lock is
 * still this session's), so a connection PostgreSQL has dropped without the client knowing yet
 * never lets a job run. Closing (app shutdown) ends the connection, which frees every lock: a
 * graceful stop hands over at the other replicas' next boundary.
 */
export class PostgresJobLease implements JobLease, OnApplicationShutdown {
  private readonly logger = new Logger('JobLease');
  private client?: Client;
  private connecting?: Promise<Client | undefined>;
  private heartbeat?: NodeJS.Timeout;
  private lastFailure = 0;
  private closed = false;
  /** job → since when this connection has held its lock (epoch ms) */
  private readonly held = new Map<string, number>();
  private readonly asking = new Map<string, Promise<number | null>>();
  /** the lease connection's statements, one after another (pg deprecates queueing them on a client) */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly runs?: Counter<'job'>;
  private readonly leader?: Gauge<'job'>;

  constructor(private readonly options: PostgresJobLeaseOptions) {
    this.runs = options.metrics?.counter('periodic_job_runs_total', 'Scheduled runs of each periodic job started on this process', ['job']);
    this.leader = options.metrics?.gauge('periodic_job_leader', '1 while this process leads the periodic job', ['job']);
  }

  hold(job: string): Promise<number | null> {
    if (this.closed) return Promise.resolve(null);
    let answer = this.asking.get(job);
    if (!answer) {
      answer = this.ask(job).finally(() => this.asking.delete(job));
      this.asking.set(job, answer);
    }
    return answer;
  }

  async release(job: string): Promise<void> {
    await this.asking.get(job);
    const client = this.client;
    if (!this.held.delete(job)) return;
    this.leader?.set({ job }, 0);
    if (!client) return;
    await this.query(client, GIVE_BACK, [this.key(job)]).catch((error: unknown) => this.drop(client, error));
  }

  ran(job: string): void {
    this.runs?.inc({ job });
  }

  /** Ends the lease connection: every lock it holds is freed. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    await Promise.all(this.asking.values());
    await this.connecting;
    const client = this.client;
    this.forget();
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private async ask(job: string): Promise<number | null> {
    const client = await this.connection();
    if (!client) return this.answer(job, null);
    const key = this.key(job);
    try {
      const wasHeld = this.held.get(job);
      const { rows } = await this.query<{ held: boolean }>(client, wasHeld === undefined ? TAKE : CONFIRM, [key]);
      // Dropped while the query was out: whatever it said belongs to a connection that is gone.
      if (client !== this.client) return this.answer(job, null);
      if (wasHeld !== undefined && !rows[0].held) {
        // Only a connection that is no longer the session it was can do this (a transaction-mode pooler).
        this.logger.error(
          { job },
          'job lease lost while its connection looked alive: leases dropped (is DATABASE_URL a transaction pooler?)',
        );
        this.drop(client);
        return this.answer(job, null);
      }
      if (wasHeld !== undefined) return this.answer(job, wasHeld);
      if (!rows[0].held) return this.answer(job, null);
      this.held.set(job, Date.now());
      this.logger.log({ job }, 'periodic job lease taken: this process leads it');
      return this.answer(job, this.held.get(job)!);
    } catch (error) {
      this.drop(client, error);
      return this.answer(job, null);
    }
  }

  /** Several jobs ask at one slot boundary: their statements take turns on the one connection. */
  private query<R extends QueryResultRow = QueryResultRow>(client: Client, text: string, params?: unknown[]): Promise<QueryResult<R>> {
    const result = this.queue.then(() => client.query<R>(text, params));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private answer(job: string, since: number | null): number | null {
    this.leader?.set({ job }, since === null ? 0 : 1);
    return since;
  }

  private key(job: string): string {
    return `${this.options.service}:${job}`;
  }

  private connection(): Promise<Client | undefined> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed || Date.now() - this.lastFailure < (this.options.retryAfterMs ?? 1_000)) return Promise.resolve(undefined);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client | undefined> {
    const idleMs = this.options.idleTimeoutMs ?? 15_000;
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: `${this.options.service} job leases`,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 5_000,
      query_timeout: this.options.queryTimeoutMs ?? 5_000,
    });
    // Listeners first: an error event without one would crash the process.
    client.on('error', (error) => this.drop(client, error));
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      await client.query(`SELECT set_config('idle_session_timeout', $1, false)`, [String(idleMs)]);
    } catch (error) {
      this.lastFailure = Date.now();
      this.logger.warn({ err: error }, 'job lease connection failed; periodic jobs wait for it');
      await client.end().catch(() => undefined);
      return undefined;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return undefined;
    }
    this.client = client;
    this.heartbeat = setInterval(() => void this.query(client, 'SELECT 1').catch((error: unknown) => this.drop(client, error)), idleMs / 3);
    this.heartbeat.unref();
    return client;
  }

  /** The connection is done for: every lease goes with it, at once. */
  private drop(client: Client, error?: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.lastFailure = Date.now();
    if (!this.closed && this.held.size > 0) {
      this.logger.warn(
        { err: error, jobs: [...this.held.keys()] },
        'job lease connection lost: this process leads no job until it takes them again',
      );
    }
    this.forget();
    void client.end().catch(() => undefined);
  }

  private forget(): void {
    for (const job of this.held.keys()) this.leader?.set({ job }, 0);
    this.held.clear();
  }
}
