import { ApiProperty } from '@nestjs/swagger';
import { REPORT_KINDS } from './report-content';
import { REPORT_STATES, REPORT_EVENTS } from './regulatory-reports.store';

const ID = '6a1f0c2e-9d3b-4e5f-8a7b-1c2d3e4f5a6b';
const OFFICER = '2b8c4d6e-1f3a-4b5c-9d7e-0a1b2c3d4e5f';

export class ReportFilingView {
  @ApiProperty({ enum: ['PHONE', 'ELECTRONIC'], example: 'PHONE' })
  channel: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T10:15:00.000Z', description: 'when it was filed, as the officer declared it' })
  filedAt: string;

  @ApiProperty({ example: OFFICER, description: 'the officer who recorded the filing' })
  filedBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T10:20:31.412Z', description: 'when the filing was recorded here' })
  recordedAt: string;

  @ApiProperty({
    example: false,
    description: 'filed, or recorded, after the filing deadline (REGULATORY_FILING_DUE_HOURS after the report was made)',
  })
  late: boolean;
}

export class ReportWrittenConfirmationView {
  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:00:00.000Z' })
  sentAt: string;

  @ApiProperty({ example: OFFICER, description: 'the officer who sent it' })
  sentBy: string;

  @ApiProperty({ example: 'ANIF/2026/11/0412', description: 'the reference of the letter or of its acknowledgement' })
  reference: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:05:12.003Z', description: 'when it was recorded here' })
  recordedAt: string;

  @ApiProperty({
    example: false,
    description:
      'sent, or recorded, after its deadline: 48 hours after the filing (the filing deadline when it came with no filing before it)',
  })
  late: boolean;
}

export class ReportSentView {
  @ApiProperty({ enum: ['ELECTRONIC', 'PAPER', 'HAND_DELIVERY'], example: 'ELECTRONIC' })
  channel: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T08:30:00.000Z' })
  sentAt: string;

  @ApiProperty({ example: OFFICER, description: 'the officer who sent it' })
  sentBy: string;

  @ApiProperty({ type: String, nullable: true, example: 'ANIF-RECV-2026-11-28-07' })
  reference: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T08:31:40.250Z' })
  recordedAt: string;
}

export class RegulatoryReportView {
  @ApiProperty({ format: 'uuid', example: ID })
  id: string;

  @ApiProperty({ enum: REPORT_KINDS, example: 'DAILY_THRESHOLD' })
  kind: string;

  @ApiProperty({ example: 'DTR-20261127', description: 'DTR-<day> for a daily report, STR-<day>-<id start> for a suspicion report' })
  reference: string;

  @ApiProperty({
    enum: REPORT_STATES,
    example: 'GENERATED',
    description: 'daily: GENERATED, SENT; suspicion: GENERATED, FILED (by phone or electronically), CONFIRMED (in writing)',
  })
  state: string;

  @ApiProperty({
    format: 'date',
    example: '2026-11-27',
    description: 'the day reported (daily) or the day the report was made (suspicion), UTC+01:00',
  })
  periodDate: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'the case of a suspicion report' })
  caseId: string | null;

  @ApiProperty({ type: 'integer', example: 3, description: 'operations the report lists' })
  operationCount: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T00:15:02.118Z' })
  generatedAt: string;

  @ApiProperty({ example: OFFICER, description: "the officer's user id, or `system` for the daily job" })
  generatedBy: string;

  @ApiProperty({ example: 'COMPLIANCE', description: 'their role (`SYSTEM` for the daily job)' })
  generatedByRole: string;

  @ApiProperty({ enum: ['SCHEDULED', 'ON_DEMAND'], example: 'SCHEDULED' })
  trigger: string;

  @ApiProperty({
    example: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
    description: 'SHA-256 (hex) of the canonical JSON content',
  })
  contentSha256: string;

  @ApiProperty({
    example: 'b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c',
    description: 'SHA-256 (hex) of the CSV document',
  })
  csvSha256: string;

  @ApiProperty({
    example: '7d865e959b2466918c9863afca942d0fb89d7c9ac0c99bafc3749504ded97730',
    description: 'SHA-256 (hex) of the HTML document',
  })
  htmlSha256: string;

  @ApiProperty({ type: ReportFilingView, nullable: true, description: 'suspicion reports filed by phone or electronically' })
  filing: ReportFilingView | null;

  @ApiProperty({ type: ReportWrittenConfirmationView, nullable: true, description: 'suspicion reports confirmed in writing' })
  writtenConfirmation: ReportWrittenConfirmationView | null;

  @ApiProperty({ type: ReportSentView, nullable: true, description: 'daily reports sent to the financial intelligence unit' })
  sent: ReportSentView | null;

  @ApiProperty({
    type: String,
    enum: ['FILING', 'WRITTEN_CONFIRMATION'],
    nullable: true,
    example: null,
    description:
      'the step a suspicion report waits for (its deadline is filingDueAt or confirmationDueAt); null once confirmed, and for a daily report',
  })
  deadline: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-28T10:15:00.000Z',
    description: 'a suspicion report: REGULATORY_FILING_DUE_HOURS (default 24) after it was made; null for a daily report',
  })
  filingDueAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-29T10:15:00.000Z',
    description: 'a filed suspicion report not yet confirmed in writing: 48 hours after its filing',
  })
  confirmationDueAt: string | null;

  @ApiProperty({ example: false, description: 'the deadline of the step it waits for (filing or written confirmation) has passed' })
  overdue: boolean;

  @ApiProperty({ example: false, description: 'that deadline is within REGULATORY_CONFIRMATION_DUE_SOON_HOURS' })
  dueSoon: boolean;

  @ApiProperty({
    type: [String],
    enum: REPORT_EVENTS.filter((e) => e.endsWith('_ALERTED')),
    example: [],
    description: 'the deadline alerts already raised for this report (each once)',
  })
  alertsRaised: string[];
}

export class RegulatoryReportDetailView extends RegulatoryReportView {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'the report as stored (docs/regulatory-reports.md "Content, CSV and printable document"): format mm.regulatory.daily-threshold.v1 (window, thresholds, ' +
      'categories with totals, operations with both parties) or mm.regulatory.suspicion.v1 (case, subject, grounds, narrative, alerts, operations, totals)',
    example: { format: 'mm.regulatory.daily-threshold.v1', reference: 'DTR-20261127', reportDate: '2026-11-27', operations: [] },
  })
  content: Record<string, unknown>;
}

export class RegulatoryReportPageView {
  @ApiProperty({ type: [RegulatoryReportView], description: 'newest first' })
  items: RegulatoryReportView[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'MjAyNi0xMS0yOFQwMDoxNTowMi4xMTgwMDBafDZhMWYwYzJl',
    description: 'the next page, or null',
  })
  nextCursor: string | null;
}

export class ReportDifferencesView {
  @ApiProperty({
    type: [String],
    example: ['MMPTX2611270A1B2C3'],
    description: 'operations found now that the stored report does not list',
  })
  added: string[];

  @ApiProperty({ type: [String], example: [], description: 'operations the stored report lists that are not found now' })
  removed: string[];

  @ApiProperty({
    type: [String],
    example: [],
    description: 'operations in both whose ledger part differs (amount, fee, time, type, accounts); a party renamed is identityDrift',
  })
  changed: string[];
}

export class IdentityDriftView {
  @ApiProperty({ example: 'MMPTX2611270A1B2C3', description: 'the operation whose party is described differently now' })
  reference: string;

  @ApiProperty({ enum: ['source', 'destination'] })
  party: 'source' | 'destination';

  @ApiProperty({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  accountId: string;

  @ApiProperty({
    type: [String],
    example: ['phone'],
    description: 'the attributes the orchestrator holds differently now: role, name, phone, kycTier, agentCode',
  })
  fields: string[];
}

export class ReportVerificationView {
  @ApiProperty({ format: 'uuid', example: ID })
  reportId: string;

  @ApiProperty({
    example: true,
    description: 'the stored texts still have the stored hashes, and the stored content renders to the stored CSV and HTML',
  })
  storedIntact: boolean;

  @ApiProperty({
    example: true,
    description:
      'storedIntact, and for a daily report its operations part (everything but the parties’ names, phones, roles, KYC tiers and ' +
      'agent codes) rebuilt now from the ledger is the same, byte for byte; a suspicion report: same as storedIntact',
  })
  identical: boolean;

  @ApiProperty({ example: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b', description: 'of the stored content' })
  storedSha256: string;

  @ApiProperty({
    example: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
    description: 'of the whole content rebuilt now (parties as known now): differs from storedSha256 when there is identity drift',
  })
  recomputedSha256: string;

  @ApiProperty({
    example: '9f2c0b4e7d1a3f5e6c8b2a4d0e1f3c5b7a9d8e6f4c2b0a1e3d5f7c9b8a6e4d2c',
    description: 'of the stored operations part (daily report; for a suspicion report the stored content’s)',
  })
  storedOperationsSha256: string;

  @ApiProperty({
    example: '9f2c0b4e7d1a3f5e6c8b2a4d0e1f3c5b7a9d8e6f4c2b0a1e3d5f7c9b8a6e4d2c',
    description: 'of the operations part rebuilt now from the ledger: equal to storedOperationsSha256 when identical',
  })
  recomputedOperationsSha256: string;

  @ApiProperty({
    type: ReportDifferencesView,
    description: 'of the operations part, by operation reference (empty for a suspicion report)',
  })
  differences: ReportDifferencesView;

  @ApiProperty({
    type: [IdentityDriftView],
    description:
      'parties the orchestrator describes differently now than the report does (a phone changed, a KYC tier raised): expected over ' +
      'time, not a fault of the report, and not counted against `identical`',
  })
  identityDrift: IdentityDriftView[];
}
