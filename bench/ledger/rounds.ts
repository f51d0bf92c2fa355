import type { Client } from 'pg';
import { type BenchRow, closedLoop, percentile, pgbench } from '../lib/bench';
import { CpuMeter } from './cpu';
import type { PoolIntent } from './fixtures';
import type { BenchClient } from './http-client';

/**
 * Workloads measured in alternating rounds (bench:ledger, docs/performance.md "`bench:ledger`"). This machine's speed drifts
 * within minutes, so a baseline and the workload it is compared with each run several short
 * segments, one after the other in turn (B1, B2, W1, B1, B2, W1, …), and each row adds up its own
 * segments: both see the same phases, and their ratio compares like with like.
 */

/** Server-Timing stages of the responses of one workload: every sample, by stage name. */
export type StageSamples = Map<string, number[]>;

export function recordStages(samples: StageSamples, header: string | string[] | undefined): void {
  for (const part of String(header ?? '').split(',')) {
    // `name;dur=ms`, or `name;desc=n` for a count (the ledger's `group`: transfers sharing one transaction)
    const m = /^\s*([\w-]+);(?:dur|desc)=([\d.]+)/.exec(part);
    if (!m) continue;
    const list = samples.get(m[1]) ?? samples.set(m[1], []).get(m[1])!;
    list.push(Number(m[2]));
  }
}

/** Median and mean of each stage, in the order the service reports them. */
export function stageSummary(samples: StageSamples): Record<string, { p50: number; mean: number }> {
  const out: Record<string, { p50: number; mean: number }> = {};
  for (const [name, values] of samples) {
    const sorted = [...values].sort((a, b) => a - b);
    out[name] = { p50: percentile(sorted, 50), mean: Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 100) / 100 };
  }
  return out;
}

/** Where a confirm loop sends its requests and how it reads that server's CPU and replays. */
export interface ConfirmTarget {
  client: BenchClient;
  pid: number | undefined;
  retries(): Promise<number>;
}

/** Whose database CPU a segment reads: the backends of `user` on `database` (CpuMeter). */
export interface MeterScope {
  admin: Client;
  database: string;
  user: string;
}

/** Something measured in segments. */
export interface Segmented {
  segment(seconds: number): Promise<void>;
}

/**
 * Runs `rounds` rounds; in each, every part measures one segment of `seconds`, `before` running
 * ahead of each segment (fresh statistics, a checkpoint not due mid-segment).
 */
export async function alternate(rounds: number, seconds: number, parts: Segmented[], before: () => Promise<void>): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    // Each round starts one part further on (B1 B2 W1, then B2 W1 B1, …): no workload always follows the same one.
    for (let k = 0; k < parts.length; k++) {
      await before();
      await parts[(k + round) % parts.length].segment(seconds);
    }
  }
}

/**
 * A closed loop of confirms (W1, W1F, W2, B2) against `target`, each request on the next intent of
 * `pool`, summed over its segments: committed operations, latencies, errors, the CPU of the server,
 * of its database backends and of this load generator, replays, and Server-Timing stages when the
 * server sends them.
 */
export class ConfirmTally implements Segmented {
  ok = 0;
  errors = 0;
  readonly errorCodes: Record<string, number> = {};
  private readonly latencies: number[] = [];
  seconds = 0;
  appMs = 0;
  dbMs = 0;
  clientMs = 0;
  retries = 0;
  readonly samples: StageSamples = new Map();
  private next = 0;

  constructor(
    readonly name: string,
    readonly concurrency: number,
    private readonly target: ConfirmTarget,
    private readonly pool: PoolIntent[],
    private readonly body: (intent: PoolIntent) => unknown,
    private readonly scope: MeterScope,
  ) {}

  async segment(seconds: number): Promise<void> {
    const before = await this.target.retries();
    const meter = new CpuMeter(this.scope.admin, this.scope.database, this.scope.user, this.target.pid);
    await meter.begin();
    // The load generator shares the two cores: its own CPU per operation says how much it takes.
    const client0 = process.cpuUsage();
    let exhausted = false;
    const r = await closedLoop(this.concurrency, seconds, async () => {
      const intent = this.pool[this.next++];
      if (!intent) {
        // Not a measurement any more: yield to the event loop (a bare return would spin the
        // workers until the deadline) and fail the run below.
        exhausted = true;
        await new Promise((resolve) => setImmediate(resolve));
        return 'POOL_EXHAUSTED';
      }
      const res = await this.target.client.call('POST', `/v1/internal/intents/${intent.id}/transition`, this.body(intent));
      if (res.status === 200) recordStages(this.samples, res.headers['server-timing']);
      return res.status === 200 ? undefined : String(res.body?.code ?? res.status);
    });
    const usage = process.cpuUsage(client0);
    const cpu = await meter.end();
    if (exhausted) throw new Error(`${this.name} c=${this.concurrency}: its ${this.pool.length} intents ran out; the pool must be larger`);
    this.retries += (await this.target.retries()) - before;
    this.ok += r.ok;
    this.errors += r.errors;
    for (const [code, n] of Object.entries(r.errorCodes)) this.errorCodes[code] = (this.errorCodes[code] ?? 0) + n;
    for (const ms of r.latenciesMs) this.latencies.push(ms);
    this.seconds += r.elapsedSec;
    this.appMs += cpu.appMs;
    this.dbMs += cpu.dbMs;
    this.clientMs += (usage.user + usage.system) / 1000;
  }

  get perSec(): number {
    return this.seconds > 0 ? Math.round((this.ok / this.seconds) * 10) / 10 : 0;
  }

  get cpuNote(): string {
    const per = (ms: number) => (ms / this.ok).toFixed(2);
    return this.ok ? `CPU/op app ${per(this.appMs)} ms, db ${per(this.dbMs)} ms, client ${per(this.clientMs)} ms` : '';
  }

  row(ratios: Record<string, number>): BenchRow {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      workload: this.name,
      concurrency: this.concurrency,
      committedPerSec: this.perSec,
      ratios,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      retriesPerOp: this.ok ? this.retries / this.ok : 0,
      errors: this.errors,
      errorCodes: this.errorCodes,
      note: this.cpuNote,
    };
  }
}

/**
 * pgbench summed over its segments (B1, B0-hot): transactions per second, average latency,
 * replays and failures, and, with a `scope`, the CPU of the backends it used. That CPU is read
 * every 250 ms while pgbench runs and its backends exit with it, so up to 250 ms of each segment's
 * last stretch is missed: B1's CPU per transfer reads a few per cent low.
 */
export class PgbenchTally implements Segmented {
  private transactions = 0;
  private seconds = 0;
  private latencyTotalMs = 0;
  retried = 0;
  failed = 0;
  dbMs = 0;

  constructor(
    readonly name: string,
    readonly concurrency: number,
    private readonly args: (seconds: number) => string[],
    private readonly scope?: MeterScope,
  ) {}

  async segment(seconds: number): Promise<void> {
    const meter = this.scope ? new CpuMeter(this.scope.admin, this.scope.database, this.scope.user) : undefined;
    await meter?.begin();
    const r = await pgbench(this.args(seconds));
    const cpu = await meter?.end();
    // pgbench's own count, over the time its tps was measured on (connection time left out).
    const n = r.transactions;
    this.transactions += n;
    this.seconds += r.tps > 0 ? n / r.tps : 0;
    this.latencyTotalMs += r.latencyAvgMs * n;
    this.retried += r.retried;
    this.failed += r.failed;
    this.dbMs += cpu?.dbMs ?? 0;
  }

  get tps(): number {
    return this.seconds > 0 ? this.transactions / this.seconds : 0;
  }

  get latencyAvgMs(): number {
    return this.transactions > 0 ? this.latencyTotalMs / this.transactions : 0;
  }

  get dbMsPerOp(): number {
    return this.transactions > 0 ? this.dbMs / this.transactions : 0;
  }

  get retriesPerOp(): number {
    return this.transactions > 0 ? this.retried / this.transactions : 0;
  }
}
