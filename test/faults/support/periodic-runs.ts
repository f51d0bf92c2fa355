/**
 * Counts the runs of the periodic jobs across every replica of the platform, from the line each
 * run logs (`periodic job run`, with the job's name, its wall-clock slot `floor(now / everyMs)` and
 * `everyMs`). A job elected through a lease must run at most once per slot whatever happens, and
 * exactly once per slot except once per kill of its leader: the slot the kill fell in (cut before
 * its run) or the next one (the lease picked up after that slot's boundary). The leader at a kill is
 * the replica that logged the job's last run before it.
 */
import type { ServiceName } from '@mm/contracts';
import type { ServiceProcess } from './service-process';

export const PERIODIC_RUN_MSG = 'periodic job run';
/** What the leader logs for a slot it let pass: its previous run still going, or a timer that jumped the boundary. */
export const PERIODIC_SKIP_MSG = 'periodic job slot skipped';

export interface PeriodicRun {
  /** `service/job`: two services may name a job alike */
  job: string;
  slot: number;
  everyMs: number;
  /** `service#r` */
  replica: string;
  at: number;
}

export interface ReplicaKill {
  service: ServiceName;
  replica: string;
  at: number;
}

export interface JobVerdict {
  job: string;
  everyMs: number;
  /** whole slots inside the window */
  slots: number;
  runs: number;
  /** slots run more than once (must be 0) */
  duplicates: number;
  /** slots inside the window nobody ran and no leader said it skipped */
  gaps: number;
  /** slots the leader let pass and said so (its previous run still going, or a late timer) */
  skipped: number;
  /** where each of them started, in seconds from the window's start (to set beside the kills') */
  missedAt: number[];
  /** kills of the replica leading this job: each may cost one slot, its own or the next */
  leaderKills: number;
  /** missed slots that are no killed leader's (must be 0) */
  unexcused: number;
  /** replicas that ran it at least once (a hand-over shows as 2) */
  runners: number;
}

export class PeriodicRunLog {
  readonly runs: PeriodicRun[] = [];
  /** `service/job@slot` of every slot a leader said it skipped */
  readonly skips = new Set<string>();
  /** lines with the marker that did not parse as a run (must stay 0: the format is the contract) */
  malformed = 0;

  /** Watches one replica's output from its next start on. */
  attach(process: ServiceProcess, replica: string): void {
    process.watch(PERIODIC_SKIP_MSG, (line) => {
      try {
        const l = JSON.parse(line) as { msg?: unknown; job?: unknown; slot?: unknown };
        if (l.msg === PERIODIC_SKIP_MSG && typeof l.job === 'string' && Number.isInteger(l.slot))
          this.skips.add(`${process.service}/${l.job}@${l.slot as number}`);
      } catch {
        this.malformed += 1;
      }
    });
    process.watch(PERIODIC_RUN_MSG, (line) => {
      try {
        const l = JSON.parse(line) as {
          msg?: unknown;
          job?: unknown;
          slot?: unknown;
          everyMs?: unknown;
          time?: unknown;
          service?: unknown;
        };
        if (l.msg !== PERIODIC_RUN_MSG) return;
        if (typeof l.job !== 'string' || !Number.isInteger(l.slot) || !Number.isInteger(l.everyMs)) throw new Error('fields');
        this.runs.push({
          job: `${process.service}/${l.job}`,
          slot: l.slot as number,
          everyMs: l.everyMs as number,
          replica,
          at: typeof l.time === 'string' ? Date.parse(l.time) : Date.now(),
        });
      } catch {
        this.malformed += 1;
      }
    });
  }

  /** The replica of `service` leading most of its jobs at `before` (each job's leader: the replica of its last run). */
  leaderOf(service: ServiceName, before = Date.now()): string | undefined {
    const last = new Map<string, PeriodicRun>();
    for (const r of this.runs)
      if (r.job.startsWith(`${service}/`) && r.at <= before && r.at >= (last.get(r.job)?.at ?? 0)) last.set(r.job, r);
    const led = new Map<string, number>();
    for (const r of last.values()) led.set(r.replica, (led.get(r.replica) ?? 0) + 1);
    return [...led].sort(([, a], [, b]) => b - a)[0]?.[0];
  }

  /**
   * Per job whose period lies in `periods` (inclusive bounds, ms), over the whole slots inside
   * [from, to]. Jobs outside the bounds (a relay polling every 200 ms) are not judged slot by slot:
   * a busy 2-core machine may stretch one of their ticks over the next slot.
   */
  verdicts(window: { from: number; to: number }, kills: ReplicaKill[], periods: { min: number; max: number }): JobVerdict[] {
    const byJob = new Map<string, PeriodicRun[]>();
    for (const r of this.runs) byJob.set(r.job, [...(byJob.get(r.job) ?? []), r]);
    const verdicts: JobVerdict[] = [];
    for (const [job, runs] of [...byJob].sort(([a], [b]) => a.localeCompare(b))) {
      const everyMs = runs[0].everyMs;
      if (everyMs < periods.min || everyMs > periods.max) continue;
      const first = Math.ceil(window.from / everyMs);
      const last = Math.floor(window.to / everyMs) - 1;
      const perSlot = new Map<number, number>();
      for (const r of runs) if (r.slot >= first && r.slot <= last) perSlot.set(r.slot, (perSlot.get(r.slot) ?? 0) + 1);
      const service = job.split('/')[0] as ServiceName;
      // the slot each kill of this job's leader fell in
      const killSlots = kills
        .filter((k) => {
          if (k.service !== service) return false;
          let leader: PeriodicRun | undefined;
          for (const r of runs) if (r.at <= k.at && (!leader || r.at >= leader.at)) leader = r;
          return leader?.replica === k.replica;
        })
        .map((k) => Math.floor(k.at / everyMs));
      // A missed slot is the hand-over's when it is the killed leader's slot or the next one, one per kill.
      const unused = [...killSlots];
      const missed: number[] = [];
      let unexcused = 0;
      let skipped = 0;
      for (let s = first; s <= last; s++) {
        if (perSlot.has(s)) continue;
        // the leader held the lease and said why it let this slot pass: nobody else could run it
        if (this.skips.has(`${job}@${s}`)) {
          skipped += 1;
          continue;
        }
        missed.push(s);
        const k = unused.findIndex((ks) => s === ks || s === ks + 1);
        if (k >= 0) unused.splice(k, 1);
        else unexcused += 1;
      }
      verdicts.push({
        job,
        everyMs,
        slots: Math.max(0, last - first + 1),
        runs: [...perSlot.values()].reduce((a, b) => a + b, 0),
        duplicates: [...perSlot.values()].filter((c) => c > 1).length,
        gaps: missed.length,
        skipped,
        // the jobs judged here start their slots at multiples of everyMs (no offset)
        missedAt: missed.map((m) => Math.round((m * everyMs - window.from) / 100) / 10),
        unexcused,
        leaderKills: killSlots.length,
        runners: new Set(runs.map((r) => r.replica)).size,
      });
    }
    return verdicts;
  }

  /** Slots run twice by any job, whatever its period (at most once per slot holds for all). */
  duplicateSlots(): string[] {
    const seen = new Map<string, number>();
    for (const r of this.runs) seen.set(`${r.job}@${r.slot}`, (seen.get(`${r.job}@${r.slot}`) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} ×${n}`);
  }
}
