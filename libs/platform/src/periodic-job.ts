import { Logger } from '@nestjs/common';
import type { JobLease } from './job-lease';

/** setTimeout's largest delay (2^31 − 1 ms, about 24.8 days). */
export const MAX_INTERVAL_MS = 2_147_483_647;
/** A follower asks for the lease at least this often. */
export const MAX_PROBE_MS = 5_000;
/** Periods from this length up log their runs at info. */
const INFO_FROM_MS = 10_000;
/** A timer late by many periods logs this many of the slots it jumped over, not all of them. */
const MAX_SKIPS_LOGGED = 10;

export interface PeriodicJobSchedule {
  /** Where the slots start, after each multiple of `everyMs` since the epoch (a daily job at 02:00 UTC: 2 h). */
  offsetMs?: number;
}

interface Running {
  everyMs: number;
  offsetMs: number;
  lease: JobLease;
  /** the latest slot whose boundary this process has seen */
  lastSlot: number;
}

/**
 * Background work run every `everyMs` by one process among the replicas: relays, sweepers,
 * clean-ups, daily checks.
 *
 * Time is cut into slots, `slot = floor((now - offsetMs) / everyMs)`, the same on every replica, and
 * each replica's timer fires at every slot boundary. At a boundary a replica runs the slot only when
 * its `JobLease` says it has held the job's lease since before that boundary; a replica that took
 * the lease during a slot waits for the next one. Two replicas cannot both have held the lease at
 * the boundary, so a slot is run at most once across replicas, and a replica that took over after
 * the leader died never runs a slot the leader may already have started. While it follows, a
 * replica asks for the lease a few times per slot (every quarter of the period, at most every
 * MAX_PROBE_MS), so when the leader dies the next slot is usually run by another replica. This
 * needs the replicas' clocks in step (NTP); a skew of d ms opens a window of d ms after a boundary
 * in which a hand-over could repeat that slot.
 *
 * Within a process, never two runs at once: a boundary that finds the previous run still going
 * skips that slot, and `runNow` (a test) joins the run in progress instead of starting a second
 * one. `runNow` runs here whoever leads: it is the caller's business to keep it safe beside the
 * leader's run.
 *
 * `runSoon` is the wake-up (work has just been committed, e.g. a PostgreSQL NOTIFY): a run now,
 * between boundaries, on the leader only and under the same rule as a boundary's run (the lease,
 * confirmed first, held since before the current slot began; a replica that just took over waits
 * for its first boundary as it would for a tick). Wake-ups coalesce: those arriving while a run or
 * its lease check is under way ask for one more run after it, so a burst costs at most two runs
 * and every wake-up is followed by a run that started after it. A follower ignores them (the
 * leader is woken too), and a lost one only leaves the work to the next boundary.
 *
 * The timer does not keep the process alive, and `stop` (from the module's shutdown hook) waits
 * for a run in progress, then gives the lease back, so another replica leads from its next boundary.
 *
 * Each scheduled run logs `periodic job run` with `{ job, slot, everyMs }` (at info from 10 s up, at
 * debug below: the outbox relays tick twice a second) and is counted by the lease
 * (`periodic_job_runs_total{job}`). A slot the leader lets pass (its previous run still going, or a
 * timer so late it jumped a boundary) logs `periodic job slot skipped` with the same fields and a `reason`.
 */
export class PeriodicJob<T, A = undefined> {
  private static readonly logger = new Logger('PeriodicJob');
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;
  private schedule?: Running;
  /** what the lease last answered: held since (epoch ms), or null */
  private leaderSince: number | null = null;
  private asking?: Promise<number | null>;
  /** a `runSoon` is checking the lease before its run */
  private waking = false;
  /** a `runSoon` came during a run (or its lease check): one more run after it */
  private again = false;

  /**
   * `name`: the job's stable name across replicas and releases (`ledger.outbox-relay`): its lease
   * and its log lines go by it. `run` gets what `runNow` was given (nothing on a tick). `onError`:
   * what a failed tick does with its error (log it); the next tick runs as usual.
   */
  constructor(
    readonly name: string,
    private readonly run: (arg?: A) => Promise<T>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Starts ticking, on the replica that holds `lease`; `everyMs` ≤ 0 leaves the job off (only
   * `runNow` runs it). Above setTimeout's largest delay Node would tick every millisecond instead:
   * refused, so a setting meant as "rarely" cannot turn into a busy loop.
   */
  start(everyMs: number, lease: JobLease, options: PeriodicJobSchedule = {}): void {
    if (everyMs > MAX_INTERVAL_MS) throw new Error(`a periodic job cannot run every ${everyMs} ms (at most ${MAX_INTERVAL_MS})`);
    if (everyMs <= 0 || this.schedule) return;
    const offsetMs = options.offsetMs ?? 0;
    this.schedule = { everyMs, offsetMs, lease, lastSlot: slotAt(Date.now(), everyMs, offsetMs) };
    // Asked at once: a replica that starts alone leads from the first boundary.
    void this.ask();
    this.arm();
  }

  /** One run now, or the one in progress (whose argument stands). */
  runNow(arg?: A): Promise<T> {
    this.running ??= this.run(arg).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.runSoon();
      }
    });
    return this.running;
  }

  /**
   * Work is waiting: a run as soon as possible if this process leads (see the class comment), else
   * nothing. Never throws; a failed run goes to `onError` like a tick's. Off until `start`.
   */
  runSoon(): void {
    const s = this.schedule;
    // A follower does not even ask: at a notification per commit that would be a lease query per commit.
    if (!s || this.leaderSince === null) return;
    if (this.running || this.waking) {
      this.again = true;
      return;
    }
    this.waking = true;
    void this.leadsNow(s)
      .then((leads) => {
        this.waking = false;
        if (!leads || this.schedule !== s) {
          this.again = false;
          return;
        }
        if (this.running) return void (this.again = true);
        this.runNow().catch(this.onError);
      })
      .catch(() => (this.waking = false));
  }

  async stop(): Promise<void> {
    const schedule = this.schedule;
    this.schedule = undefined;
    this.again = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    if (!schedule) return;
    await this.asking;
    this.leaderSince = null;
    await schedule.lease.release(this.name);
  }

  private arm(): void {
    const s = this.schedule;
    if (!s) return;
    const now = Date.now();
    let at = (s.lastSlot + 1) * s.everyMs + s.offsetMs;
    if (this.leaderSince === null) at = Math.min(at, now + Math.min(s.everyMs / 4, MAX_PROBE_MS));
    // Never further than one period: a wall clock set back must not stall the job for as long.
    this.timer = setTimeout(() => this.wake(), Math.min(Math.max(0, at - now), s.everyMs));
    this.timer.unref();
  }

  private wake(): void {
    const s = this.schedule;
    if (!s) return;
    // A timer that fires a little early is only a probe: the boundary comes at the next wake.
    const slot = slotAt(Date.now(), s.everyMs, s.offsetMs);
    if (slot > s.lastSlot) {
      // The timer fired after more than one boundary (a blocked event loop, a suspended process):
      // the boundaries in between were never seen. Said by the leader, so a missing run is explained.
      for (let missed = s.lastSlot + 1; missed < slot && missed <= s.lastSlot + MAX_SKIPS_LOGGED; missed++) this.skipped(missed, s, 'late');
      s.lastSlot = slot;
      void this.tick(slot, s);
    } else if (this.leaderSince === null) {
      void this.ask();
    }
    this.arm();
  }

  /** The tick's rule, between boundaries: the lease confirmed now, and held since before the current slot began. */
  private async leadsNow(s: Running): Promise<boolean> {
    await this.asking;
    const since = await this.ask();
    return since !== null && since < slotAt(Date.now(), s.everyMs, s.offsetMs) * s.everyMs + s.offsetMs;
  }

  private async tick(slot: number, s: Running): Promise<void> {
    // The run of an earlier slot is still going: this slot is skipped.
    if (this.running) {
      this.skipped(slot, s, 'busy');
      return;
    }
    // A question still out was asked before this boundary: its answer cannot vouch for the slot.
    await this.asking;
    const since = await this.ask();
    // Held since strictly before the boundary: `since` is read after the lock was granted, to the millisecond.
    if (since === null || since >= slot * s.everyMs + s.offsetMs || this.schedule !== s || this.running) return;
    s.lease.ran(this.name);
    const fields = { job: this.name, slot, everyMs: s.everyMs };
    if (s.everyMs >= INFO_FROM_MS) PeriodicJob.logger.log(fields, 'periodic job run');
    else PeriodicJob.logger.debug(fields, 'periodic job run');
    this.runNow().catch(this.onError);
  }

  /**
   * A slot this process, as the leader, let pass without a run: logged beside the runs (same level
   * rule) so that a slot nobody ran is told from a lost lease. Followers say nothing: another replica runs it.
   */
  private skipped(slot: number, s: Running, reason: 'busy' | 'late'): void {
    if (this.leaderSince === null) return;
    const fields = { job: this.name, slot, everyMs: s.everyMs, reason };
    if (s.everyMs >= INFO_FROM_MS) PeriodicJob.logger.log(fields, 'periodic job slot skipped');
    else PeriodicJob.logger.debug(fields, 'periodic job slot skipped');
  }

  /** Asks the lease (one question in flight at a time); a leader that lost it goes back to probing at once. */
  private ask(): Promise<number | null> {
    const s = this.schedule;
    if (!s) return Promise.resolve(null);
    this.asking ??= s.lease
      .hold(this.name)
      .catch(() => null)
      .then((since) => {
        this.asking = undefined;
        const lost = this.leaderSince !== null && since === null;
        this.leaderSince = since;
        if (lost && this.schedule === s) {
          clearTimeout(this.timer);
          this.arm();
        }
        return since;
      });
    return this.asking;
  }
}

function slotAt(now: number, everyMs: number, offsetMs: number): number {
  return Math.floor((now - offsetMs) / everyMs);
}
