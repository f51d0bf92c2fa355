import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsService, PeriodicJob, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { ComplianceChannel } from './compliance-channel';
import { ReportClock } from './report-clock';
import { REPORT_LOG_CODES } from './report-log-codes';
import { type DeadlineAlertEvent, type ReportDeadline, type ReportRow, RegulatoryReportsStore } from './regulatory-reports.store';
import { SYSTEM_ACTOR } from './regulatory-reports.service';

export interface DeadlineAlert {
  reportId: string;
  reference: string;
  alert: DeadlineAlertEvent;
}

/** The event, log code and wording of each alert, by the step the report waits for. */
const ALERTS: Record<
  ReportDeadline,
  Record<'overdue' | 'dueSoon', { event: DeadlineAlertEvent; code: string; text: (reference: string) => string }>
> = {
  FILING: {
    overdue: {
      event: 'FILING_OVERDUE_ALERTED',
      code: REPORT_LOG_CODES.FILING_OVERDUE,
      text: (r) => `suspicion report ${r} was made but has not been filed with the financial intelligence unit in time`,
    },
    dueSoon: {
      event: 'FILING_DUE_SOON_ALERTED',
      code: REPORT_LOG_CODES.FILING_DUE_SOON,
      text: (r) => `suspicion report ${r}: its filing is due soon`,
    },
  },
  WRITTEN_CONFIRMATION: {
    overdue: {
      event: 'OVERDUE_ALERTED',
      code: REPORT_LOG_CODES.CONFIRMATION_OVERDUE,
      text: (r) => `suspicion report ${r} has had no written confirmation within 48 hours of its filing`,
    },
    dueSoon: {
      event: 'DUE_SOON_ALERTED',
      code: REPORT_LOG_CODES.CONFIRMATION_DUE_SOON,
      text: (r) => `suspicion report ${r}: its written confirmation is due soon`,
    },
  },
};

/**
 * The deadlines of suspicion reports: filing (REGULATORY_FILING_DUE_HOURS after the report was made)
 * and, once filed by phone or electronically, the written confirmation (48 hours after the filing).
 * Every REGULATORY_DEADLINE_CHECK_INTERVAL_MS, on one replica (a session advisory lock), each report
 * whose pending deadline is near or past raises its alert ONCE: the alert is an event of the report
 * (unique per report), written before the log line, the metric and the compliance channel, so a
 * second pass or a second replica finds it and stays quiet. An overdue report is an ERROR line with
 * its code, one more on the metric, and a message on the compliance channel (COMPLIANCE_ALERT_URL).
 */
@Injectable()
export class ReportDeadlines implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReportDeadlines.name);
  private readonly alerts: Counter<'deadline'>;
  private readonly filingAlerts: Counter<'deadline'>;
  private readonly job = new PeriodicJob<DeadlineAlert[] | null>(
    'orchestrator.regulatory-report-deadlines',
    () => this.pass(),
    (error: unknown) => this.logger.error({ msg: 'regulatory report deadline check failed; next tick', err: error }),
  );

  constructor(
    private readonly store: RegulatoryReportsStore,
    private readonly clock: ReportClock,
    private readonly config: OrchestratorConfig,
    private readonly channel: ComplianceChannel,
    metrics: MetricsService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    this.alerts = metrics.counter(
      'regulatory_report_confirmation_alerts_total',
      'Suspicion reports whose written confirmation became due soon or overdue (each report counted once per deadline state)',
      ['deadline'],
    );
    this.filingAlerts = metrics.counter(
      'regulatory_report_filing_alerts_total',
      'Suspicion reports whose filing became due soon or overdue (each report counted once per deadline state)',
      ['deadline'],
    );
  }

  onApplicationBootstrap(): void {
    this.job.start(this.config.REGULATORY_DEADLINE_CHECK_INTERVAL_MS, this.leases);
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
      if (!row.deadline) continue;
      const alert = ALERTS[row.deadline][row.overdue ? 'overdue' : 'dueSoon'];
      if (row.alerts.includes(alert.event)) continue;
      try {
        await this.store.addEvent(this.store.db, {
          reportId: row.id,
          event: alert.event,
          actorId: SYSTEM_ACTOR.userId,
          actorRole: SYSTEM_ACTOR.role,
          channel: null,
          externalReference: null,
          note: null,
          occurredAt: now,
          recordedAt: now,
        });
      } catch (error) {
        // raised meanwhile (a filing or confirmation cannot race it: the alert only records the deadline seen)
        if ((error as { code?: string }).code === '23505') continue;
        throw error;
      }
      await this.announce(row, alert);
      raised.push({ reportId: row.id, reference: row.reference, alert: alert.event });
    }
    return raised;
  }

  private async announce(row: ReportRow, alert: (typeof ALERTS)[ReportDeadline]['overdue']): Promise<void> {
    const facts = {
      code: alert.code,
      reportId: row.id,
      reference: row.reference,
      caseId: row.case_id,
      deadline: row.deadline,
      dueAt: row.due_at ? new Date(row.due_at).toISOString() : null,
      filedAt: row.f_at ? new Date(row.f_at).toISOString() : null,
    };
    const counter = row.deadline === 'FILING' ? this.filingAlerts : this.alerts;
    if (!row.overdue) {
      counter.inc({ deadline: 'DUE_SOON' });
      this.logger.warn(facts, alert.text(row.reference));
      return;
    }
    counter.inc({ deadline: 'OVERDUE' });
    this.logger.error(facts, alert.text(row.reference));
    await this.channel.send({ text: alert.text(row.reference), correlationId: `${alert.event}:${row.id}`, ...facts });
  }
}
