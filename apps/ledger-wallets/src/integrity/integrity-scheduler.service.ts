import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ALWAYS_LEADER, JOB_LEASE, type JobLease, PeriodicJob, requestContext } from '@mm/platform';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { IntegrityCheckService } from './integrity-check.service';

const DAY_MS = 86_400_000;

/**
 * Runs the integrity check every day at LEDGER_INTEGRITY_TIME_UTC (02:00 by default), on the one
 * replica that leads `ledger.integrity-check`: a daily slot that starts at that time.
 */
@Injectable()
export class IntegrityScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IntegrityScheduler.name);
  private readonly job = new PeriodicJob(
    'ledger.integrity-check',
    // Its own ids, so every log line of the run carries the check's correlation id.
    () => requestContext.run({ requestId: randomUUID(), correlationId: randomUUID() }, () => this.checks.run()),
    (error: unknown) => this.logger.error({ err: error }, 'scheduled integrity check failed'),
  );

  constructor(
    private readonly checks: IntegrityCheckService,
    private readonly config: LedgerWalletsConfig,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.LEDGER_INTEGRITY_SCHEDULE_ENABLED) return;
    const [hh, mm] = this.config.LEDGER_INTEGRITY_TIME_UTC.split(':').map(Number);
    this.job.start(DAY_MS, this.leases, { offsetMs: (hh * 60 + mm) * 60_000 });
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }
}
