import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { ApprovalRequestsStore } from './approval-requests.store';
import { ApprovalsService } from './approvals.service';

/** pg advisory lock key of the sweep ("approval" as a number): one replica sweeps at a time. */
const SWEEP_LOCK = 0x617070;

export interface SweepOutcome {
  /** false when another replica held the lock and this run did nothing */
  ran: boolean;
  expired: number;
  resumed: number;
  /** reservations of final requests given back on a retry */
  released: number;
  /** reservations of submissions never stored, given back */
  abandoned: number;
}

/**
 * Every APPROVAL_SWEEP_INTERVAL_MS: pending requests past their expiry become EXPIRED and their
 * handlers release what prepare reserved; executions a crash left EXECUTING past the grace period
 * are settled (or run again); releases that failed are tried again; reservations made for a
 * submission that was never stored are given back. A Postgres advisory lock held for the run keeps two replicas from both
 * releasing (the status UPDATEs are conditional anyway).
 */
@Injectable()
export class ApprovalSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ApprovalSweep.name);
  private readonly job = new PeriodicJob<SweepOutcome>(
    'orchestrator.approval-sweep',
    () => this.pass(),
    (error: unknown) => this.logger.error({ msg: 'approval sweep failed; next tick', err: error }),
  );

  constructor(
    private readonly config: OrchestratorConfig,
    private readonly store: ApprovalRequestsStore,
    private readonly approvals: ApprovalsService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.APPROVAL_SWEEP_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One pass now (or the one in progress). */
  runOnce(): Promise<SweepOutcome> {
    return this.job.runNow();
  }

  private async pass(): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { ran: false, expired: 0, resumed: 0, released: 0, abandoned: 0 };
    outcome.ran = await this.store.withAdvisoryLock(SWEEP_LOCK, async () => {
      outcome.expired = await this.approvals.expireDue();
      outcome.resumed = await this.approvals.resumeStuck();
      outcome.released = await this.approvals.retryReleases();
      outcome.abandoned = await this.approvals.abandonStray();
    });
    if (outcome.expired + outcome.resumed + outcome.released + outcome.abandoned > 0)
      this.logger.log({ msg: 'approval sweep', ...outcome });
    return outcome;
  }
}
