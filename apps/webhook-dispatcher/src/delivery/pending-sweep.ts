import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PeriodicJob, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { WebhookEventsRepository } from '../events/webhook-events.repository';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DeliveryService } from './delivery.service';
import { WebhookQueue, resendJobId } from './webhook-queue';

/** Events looked at per query; a sweep goes on until a query finds fewer. */
const PAGE = 200;

export interface SweepResult {
  /** queued again: their job was missing (or had completed while the event stayed pending) */
  requeued: string[];
  /** marked failed: BullMQ had given up on their job (e.g. it stalled too often) */
  failed: string[];
}

/**
 * The safety net for events the dispatcher recorded but whose job is gone: Redis restarted without
 * its last writes, was restored from an older state, or failed the job without the worker seeing it.
 * Every WEBHOOK_PENDING_SWEEP_INTERVAL_MS it takes the events 'pending' with no change for
 * WEBHOOK_PENDING_SWEEP_AGE_MS and looks up the job of their latest run:
 * - still waiting, delayed or running: left alone;
 * - failed: the event is marked failed (the window resend picks it up), with an error line;
 * - missing: one more run is claimed in the database (only if the event is still as seen, so two
 *   sweeps, on one or several dispatchers, queue it once) and queued as a resend job (the recorded
 *   body, no deduplication: the lost run may never have reached the receiver).
 * Events that never reached the dispatcher are not in its table: out of its reach.
 */
@Injectable()
export class PendingSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PendingSweep.name);
  private readonly job = new PeriodicJob(
    'dispatcher.pending-sweep',
    () => this.pass(),
    (error) =>
      this.logger.warn({ msg: 'pending webhook sweep failed; next one at the next interval', err: { message: (error as Error).message } }),
  );

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly events: WebhookEventsRepository,
    private readonly queue: WebhookQueue,
    private readonly delivery: DeliveryService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.WEBHOOK_PENDING_SWEEP_INTERVAL_MS, this.leases);
  }

  /**
   * Waits for a pass in progress: stopping mid-pass could leave a claimed run unqueued until the next
   * sweep. On module destroy, not application shutdown: Nest destroys a provider before those it
   * depends on, so the job stops (and its pass ends) before WebhookQueue closes its connection; by
   * the application-shutdown hooks the queue is already closed and a tick could still start a pass.
   */
  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /** One pass; a call while a pass runs joins it. */
  sweep(): Promise<SweepResult> {
    return this.job.runNow();
  }

  private async pass(): Promise<SweepResult> {
    const ageMs = this.config.WEBHOOK_PENDING_SWEEP_AGE_MS;
    const result: SweepResult = { requeued: [], failed: [] };
    let after: string | undefined;
    for (;;) {
      const stale = await this.events.stalePending(ageMs, PAGE, after);
      for (const { id, run } of stale) {
        const jobId = resendJobId(id, run);
        const fate = await this.queue.jobFate(jobId);
        if (fate === 'live') continue;
        if (fate === 'failed') {
          // Marked (and counted) only while still pending under this run: of several sweeps, or a sweep
          // and the worker, one counts it.
          if (await this.delivery.markRunGivenUp(id, run, { jobId, reason: 'its job was found failed by the pending sweep' })) {
            result.failed.push(id);
          }
          continue;
        }
        const next = await this.events.claimStale(id, run, ageMs);
        if (next === null) continue;
        // If this throws (Redis away), the claim already refreshed the event: a later sweep retries it.
        const queued = await this.queue.resend(id, next);
        result.requeued.push(id);
        this.logger.warn({ msg: 'webhook event pending without a job; queued again', eventId: id, lostJobId: jobId, jobId: queued });
      }
      if (stale.length < PAGE) return result;
      after = stale[stale.length - 1].cursor;
    }
  }
}
