import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsService, PeriodicJob } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { ReportClock } from './report-clock';
import { REPORT_LOG_CODES } from './report-log-codes';
import { RegulatoryReportsStore } from './regulatory-reports.store';
import { SYSTEM_ACTOR } from './regulatory-reports.service';

export interface DeadlineAlert {
  reportId: string;
  reference: string;
  alert: 'OVERDUE_ALERTED' | 'DUE_SOON_ALERTED';
}

/**
 * The 48-hour written confirmation deadline of suspicion reports filed by phone or electronically.
 * Every REGULATORY_DEADLINE_CHECK_INTERVAL_MS, on one replica (a session advisory lock), each filed
 * report not confirmed in writing whose deadline is near or past raises its alert ONCE: the alert is
 * an event of the report (DUE_SOON_ALERTED, OVERDUE_ALERTED; unique per report), written before the
 * log line and the metric, so a second pass or a second replica finds it and stays quiet. An overdue
 * report is an ERROR line with code REGULATORY_CONFIRMATION_OVERDUE and one more on
 * `regulatory_report_confirmation_alerts_total{deadline="OVERDUE"}`.
 */
@Injectable()
export class ReportDeadlines implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReportDeadlines.name);
  private readonly alerts: Counter<'deadline'>;
  private readonly job = new PeriodicJob<DeadlineAlert[] | null>(
    () => this.pass(),
    (error: unknown) => this.logger.error({ msg: 'regulatory report deadline check failed; next tick', err: error }),
  );

  constructor(
    private readonly store: RegulatoryReportsStore,
    private readonly clock: ReportClock,
    private readonly config: OrchestratorConfig,
    metrics: MetricsService,
  ) {
    this.alerts = metrics.counter(
      'regulatory_report_confirmation_alerts_total',
      'Suspicion reports whose written confirmation became due soon or overdue (each report counted once per deadline state)',
      ['deadline'],
    );
  }

  onApplicationBootstrap(): void {
    this.job.start(this.config.REGULATORY_DEADLINE_CHECK_INTERVAL_MS);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One check now (or the one in progress); null when another replica holds the lock. */
  runNow(): Promise<DeadlineAlert[] | null> {
    return this.job.runNow();
  }

  private async pass(): Promise<DeadlineAlert[] | null> {
    let raised: DeadlineAlert[] = [];
    const ran = await this.store.withJobLock('regulatory-report-deadlines', async () => {
      raised = await this.check();
    });
    return ran ? raised : null;
  }

  private async check(): Promise<DeadlineAlert[]> {
    const raised: DeadlineAlert[] = [];
    const now = this.clock.now();
    for (const row of await this.store.unconfirmed(now, this.config.REGULATORY_CONFIRMATION_DUE_SOON_HOURS)) {
      const alert = row.overdue ? 'OVERDUE_ALERTED' : 'DUE_SOON_ALERTED';
      if (row.alerts.includes(alert)) continue;
      try {
        await this.store.addEvent(this.store.db, {
          reportId: row.id,
          event: alert,
          actorId: SYSTEM_ACTOR.userId,
          actorRole: SYSTEM_ACTOR.role,
          channel: null,
          externalReference: null,
          note: null,
          occurredAt: now,
        });
      } catch (error) {
        // raised meanwhile (a confirmation cannot race it: the alert only records the deadline seen)
        if ((error as { code?: string }).code === '23505') continue;
        throw error;
      }
      const facts = { reportId: row.id, reference: row.reference, filedAt: row.f_at, confirmationDueAt: row.due_at, caseId: row.case_id };
      if (row.overdue) {
        this.alerts.inc({ deadline: 'OVERDUE' });
        this.logger.error(
          { code: REPORT_LOG_CODES.CONFIRMATION_OVERDUE, ...facts },
          `suspicion report ${row.reference} has had no written confirmation within 48 hours of its filing`,
        );
      } else {
        this.alerts.inc({ deadline: 'DUE_SOON' });
        this.logger.warn(
          { code: REPORT_LOG_CODES.CONFIRMATION_DUE_SOON, ...facts },
          `suspicion report ${row.reference}: its written confirmation is due soon`,
        );
      }
      raised.push({ reportId: row.id, reference: row.reference, alert });
    }
    return raised;
  }
}
