/**
 * Which replica runs a periodic job. A `PeriodicJob` asks its lease at every slot boundary (and,
 * while it follows, a few times per slot) and runs a slot only when this process has held the
 * job's lease without a break since before that slot began: then no other process can have held
 * it at the boundary, so no other process runs that slot (see periodic-job.ts).
 *
 * The real lease is a PostgreSQL session advisory lock (`PostgresJobLease`, wired by
 * `PlatformModule` for every app with a database); `ALWAYS_LEADER` is for one process alone
 * (unit tests, a service constructed outside Nest).
 */
export interface JobLease {
  /**
   * Holds `job`'s lease, asking for it when this process does not hold it yet. Answers the time
   * (epoch ms) since which this process has held it without a break, or null when another process
   * holds it or the lease cannot be asked for (database unreachable). Never rejects.
   */
  hold(job: string): Promise<number | null>;
  /** Gives `job`'s lease back (its job stopped), so another replica takes it at once. Never rejects. */
  release(job: string): Promise<void>;
  /** A scheduled run of `job` starts on this process (counted in metrics). */
  ran(job: string): void;
}

/** Nest token of the process's `JobLease`. */
export const JOB_LEASE = Symbol('JOB_LEASE');

/** One process alone: it always leads, since forever. */
export const ALWAYS_LEADER: JobLease = {
  hold: () => Promise.resolve(0),
  release: () => Promise.resolve(),
  ran: () => undefined,
};
