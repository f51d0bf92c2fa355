import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { requestContext } from '@mm/platform';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { msUntilNextDailyRun } from './daily-schedule';
import { IntegrityCheckService } from './integrity-check.service';

/** Runs the integrity check every day at LEDGER_INTEGRITY_TIME_UTC (02:00 by default). */
@Injectable()
export class IntegrityScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IntegrityScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly checks: IntegrityCheckService,
    private readonly config: LedgerWalletsConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.LEDGER_INTEGRITY_SCHEDULE_ENABLED) this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    const wait = msUntilNextDailyRun(this.config.LEDGER_INTEGRITY_TIME_UTC);
    this.timer = setTimeout(() => {
      // Its own ids, so every log line of the run carries the check's correlation id.
      const ids = { requestId: randomUUID(), correlationId: randomUUID() };
      this.running = requestContext
        .run(ids, () => this.checks.run())
        .catch((error: unknown) => this.logger.error({ err: error }, 'scheduled integrity check failed'))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, wait);
    this.timer.unref();
  }
}
