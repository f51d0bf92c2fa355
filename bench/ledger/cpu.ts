import { readFileSync } from 'node:fs';
import type { Client } from 'pg';

/**
 * CPU time actually spent (user + system, from /proc/<pid>/stat), the measure that stays meaningful
 * on a shared machine: throughput and latency move with everyone else's load, the CPU a transfer
 * costs the ledger process and its PostgreSQL backends does not. Linux only; elsewhere 0.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux

export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces, hence the last ')').
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * Samples the CPU of a process and of the PostgreSQL backends connected to one database as one
 * user, while a measured loop runs. Backends that end during the loop keep the CPU last sampled
 * (every 250 ms), so a short-lived connection is slightly under-counted.
 */
export class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private appStart = 0;
  private polling?: Promise<void>;

  constructor(
    private readonly admin: Client,
    private readonly database: string,
    private readonly user: string,
    private readonly appPid?: number,
  ) {}

  private async backends(): Promise<number[]> {
    const r = await this.admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND usename = $2 AND pid <> pg_backend_pid()`,
      [this.database, this.user],
    );
    return r.rows.map((row) => row.pid);
  }

  private async poll(): Promise<void> {
    for (const pid of await this.backends()) {
      const ms = cpuMsOf(pid);
      if (!this.start.has(pid)) this.start.set(pid, this.started ? 0 : ms);
      if (ms > 0) this.last.set(pid, ms);
    }
  }

  private started = false;

  async begin(): Promise<void> {
    this.appStart = this.appPid ? cpuMsOf(this.appPid) : 0;
    await this.poll();
    this.started = true;
    this.timer = setInterval(() => {
      this.polling = this.poll().catch(() => undefined);
    }, 250);
  }

  /** CPU ms spent since `begin` by the process and by the database backends. */
  async end(): Promise<{ appMs: number; dbMs: number }> {
    clearInterval(this.timer);
    await this.polling;
    await this.poll();
    let dbMs = 0;
    for (const [pid, ms] of this.last) dbMs += ms - (this.start.get(pid) ?? 0);
    return { appMs: this.appPid ? cpuMsOf(this.appPid) - this.appStart : 0, dbMs };
  }
}
