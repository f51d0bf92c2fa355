import { Module } from '@nestjs/common';
import { MonitoringModule } from '../monitoring/monitoring.module';
import { ComplianceChannel } from './compliance-channel';
import { DailyReportJob } from './daily-report.job';
import { PartyIdentities } from './party-identities';
import { ReportClock } from './report-clock';
import { ReportDeadlines } from './report-deadlines.job';
import { RegulatoryLedgerClient } from './regulatory-ledger.client';
import { RegulatoryReportsController } from './regulatory-reports.controller';
import { RegulatoryReportsService } from './regulatory-reports.service';
import { RegulatoryReportsStore } from './regulatory-reports.store';

/**
 * Regulatory reports (docs/regulatory-reports.md): the daily threshold report (from the ledger) and
 * suspicion reports (from the monitoring module's cases, through CASE_FACTS), their documents,
 * lifecycle and deadline alerts.
 */
@Module({
  imports: [MonitoringModule],
  controllers: [RegulatoryReportsController],
  providers: [
    RegulatoryReportsStore,
    RegulatoryLedgerClient,
    PartyIdentities,
    ReportClock,
    RegulatoryReportsService,
    DailyReportJob,
    ReportDeadlines,
    ComplianceChannel,
  ],
})
export class RegulatoryReportsModule {}
