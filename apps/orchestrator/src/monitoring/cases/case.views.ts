import { ApiProperty } from '@nestjs/swagger';
import { ApprovalRequestView } from '../../approvals/approval.views';
import { RULE_CODES } from '../rules/monitoring-rule';
import { CASE_DECISIONS, CASE_EVENT_KINDS, CASE_STATUSES } from './case.types';

const SUBJECT_KINDS = ['CUSTOMER', 'AGENT', 'MERCHANT'];
const UUID_EXAMPLE = '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';

export class AlertView {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  id: string;

  @ApiProperty({ enum: RULE_CODES, example: 'STRUCTURING' })
  rule: string;

  @ApiProperty({ format: 'uuid', description: 'the person the alert is about (user id)', example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' })
  subjectUserId: string;

  @ApiProperty({ enum: SUBJECT_KINDS, example: 'CUSTOMER' })
  subjectKind: string;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({
    description: 'narrows the subject for rules about a pair (AGENT_CYCLING: the customer’s user id), else empty',
    example: '',
  })
  scope: string;

  @ApiProperty({ format: 'date-time', description: 'start of the window the rule looked at', example: '2026-11-21T10:00:00.000Z' })
  windowStart: string;

  @ApiProperty({
    format: 'date-time',
    description: 'end of the window: the time of the operation that raised the alert',
    example: '2026-11-22T10:00:00.000Z',
  })
  windowEnd: string;

  @ApiProperty({ description: 'version of the monitoring configuration the rule ran under', example: 1 })
  configVersion: number;

  @ApiProperty({
    example:
      '3 operations between 900 000 XAF and 999 999 XAF within 24 h, 2 850 000 XAF in all: each under the 1 000 000 XAF reporting threshold, together above it',
  })
  reason: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'the figures the rule saw',
    example: { operations: 3, total: 2850000 },
  })
  figures: Record<string, number | string>;

  @ApiProperty({
    type: [String],
    description: 'ledger references of the operations behind the alert, oldest first',
    example: ['MMPTX2611220A1B2C3'],
  })
  transactionReferences: string[];

  @ApiProperty({ description: 'how many operations were behind the hit (more than named when truncated)', example: 3, minimum: 1 })
  operationsTotal: number;

  @ApiProperty({
    description: 'true: the hit had more than 200 operations; the first ones and the one that raised the alert are named',
    example: false,
  })
  truncated: boolean;

  @ApiProperty({ format: 'uuid', description: 'the case the alert belongs to', example: UUID_EXAMPLE })
  caseId: string;

  @ApiProperty({ example: 'MC-000001' })
  caseReference: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:01.000Z' })
  raisedAt: string;
}

export class AlertPageView {
  @ApiProperty({ type: [AlertView] })
  items: AlertView[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last page', example: null })
  nextCursor: string | null;
}

export class CaseClockView {
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:01.000Z' })
  openedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:01.000Z' })
  firstAlertAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T11:30:00.000Z' })
  lastAlertAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:20:00.000Z' })
  firstAssignedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  decidedAt: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'seconds from opening to the first assignment', example: 1199 })
  timeToAssignmentSeconds: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'seconds from opening to the decision', example: null })
  timeToDecisionSeconds: number | null;

  @ApiProperty({ description: 'seconds the case has been open (until its decision once closed)', example: 5400 })
  ageSeconds: number;
}

export class CaseSubjectView {
  @ApiProperty({ enum: SUBJECT_KINDS, example: 'CUSTOMER' })
  kind: string;

  @ApiProperty({ format: 'uuid', example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' })
  userId: string;

  @ApiProperty({ type: String, nullable: true, example: 'Awa Ndiaye' })
  name: string | null;

  @ApiProperty({ type: String, nullable: true, example: '+237690000001' })
  phone: string | null;

  @ApiProperty({ type: [String], description: 'the person’s ledger accounts', example: ['d8a2616f-f2a4-4c33-b911-d40cb9c8cba9'] })
  accountIds: string[];

  @ApiProperty({ description: 'the person 360 view for staff', example: '/api/backoffice/people/7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' })
  person360: string;
}

export class CaseSummaryView {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  id: string;

  @ApiProperty({ example: 'MC-000001' })
  reference: string;

  @ApiProperty({
    enum: CASE_STATUSES,
    example: 'IN_REVIEW',
    description:
      'OPEN: nobody assigned; IN_REVIEW: assigned; DECISION_PENDING: a FREEZE waits for a second officer (pendingRequestId); CLOSED: decided',
  })
  status: string;

  @ApiProperty({ format: 'uuid', description: 'the person the case is about', example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' })
  subjectUserId: string;

  @ApiProperty({ enum: SUBJECT_KINDS, example: 'CUSTOMER' })
  subjectKind: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  assigneeId: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the CASE_FREEZE approval request waiting for a checker',
    example: null,
  })
  pendingRequestId: string | null;

  @ApiProperty({ enum: CASE_DECISIONS, nullable: true, example: null })
  decision: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  decisionNote: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'who decided (the maker of a FREEZE)', example: null })
  decidedBy: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the CASE_FREEZE approval request (decision FREEZE)',
    example: null,
  })
  decisionRequestId: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the suspicion report (decision SUSPICION_REPORT)',
    example: null,
  })
  decisionReportId: string | null;

  @ApiProperty({ description: 'alerts in the case', example: 2 })
  alertCount: number;

  @ApiProperty({ type: CaseClockView })
  clock: CaseClockView;
}

export class CasePageView {
  @ApiProperty({ type: [CaseSummaryView] })
  items: CaseSummaryView[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last page', example: null })
  nextCursor: string | null;
}

export class CaseEventView {
  @ApiProperty({ enum: CASE_EVENT_KINDS, example: 'ASSIGNED' })
  kind: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the officer; null for the monitoring feed itself',
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
  })
  actorId: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'what the step recorded; for PERSON_360 evidence, all but the snapshot itself (shown once, in `evidence`)',
    example: { assigneeId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', previousAssigneeId: null },
  })
  details: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:20:00.000Z' })
  at: string;
}

export class CaseEvidenceView {
  @ApiProperty({ enum: ['TRANSACTION', 'PERSON_360'], example: 'TRANSACTION' })
  kind: string;

  @ApiProperty({ type: String, nullable: true, description: 'TRANSACTION: the ledger reference', example: 'MMPTX2611220A1B2C3' })
  reference: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'TRANSACTION: the ledger transaction', example: null })
  transactionId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'PERSON_360: the person', example: null })
  userId: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'PERSON_360: the person 360 view, live', example: null })
  link: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'PERSON_360: the person 360 view (shape of GET /api/backoffice/people/{userId}) as the officer who attached it saw it, ' +
      'at most 64 KiB of JSON (longer lists shortened to their newest items, named in `snapshotCut`)',
    example: null,
  })
  snapshot: Record<string, unknown> | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'PERSON_360: when the 360 view was read',
    example: null,
  })
  snapshotTakenAt: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    nullable: true,
    description:
      'PERSON_360: each list of the view that was shortened to fit (`holds.items`) with how many items the view had; empty when ' +
      'the view was kept whole. `*`: even without its lists the view was too large, only its top-level fields and identity are kept',
    example: {},
  })
  snapshotCut: Record<string, number> | null;

  @ApiProperty({ type: String, nullable: true, example: 'Same agent on every cash-out' })
  note: string | null;

  @ApiProperty({ format: 'uuid', description: 'who attached it', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  addedBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:25:00.000Z' })
  addedAt: string;
}

export class CaseOperationView {
  @ApiProperty({ example: 'MMPTX2611220A1B2C3' })
  reference: string;

  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  transactionId: string;

  @ApiProperty({ enum: ['TRANSFER', 'CASH_IN', 'CASH_OUT'], example: 'TRANSFER' })
  type: string;

  @ApiProperty({ description: 'integer, smallest unit of the currency', example: 950000 })
  amount: number;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T09:59:58.000Z' })
  occurredAt: string;

  @ApiProperty({ format: 'uuid', example: 'd8a2616f-f2a4-4c33-b911-d40cb9c8cba9' })
  sourceAccountId: string;

  @ApiProperty({ format: 'uuid', example: 'cea2333b-390b-404c-b78f-192a5e18d57c' })
  destinationAccountId: string;
}

export class CaseOperationPageView {
  @ApiProperty({ type: [CaseOperationView], description: 'oldest first' })
  items: CaseOperationView[];

  @ApiProperty({ description: 'operations of the case in all (its alerts’ and its evidence’s)', example: 3 })
  total: number;

  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last page', example: null })
  nextCursor: string | null;
}

export class CaseDetailView extends CaseSummaryView {
  @ApiProperty({
    description:
      'the case’s version: how many history events it has. Any change (an alert joining, a note, evidence, an assignment) moves ' +
      'it. A decision and a suspicion report send the version they were taken on as `expectedVersion` (409 CASE_CHANGED if it moved)',
    example: 5,
  })
  version: number;

  @ApiProperty({ type: CaseSubjectView })
  subject: CaseSubjectView;

  @ApiProperty({
    type: [AlertView],
    description: 'oldest first, at most the first 50 (`alertCount` says how many there are; all: GET /api/v1/compliance/alerts?caseId=)',
  })
  alerts: AlertView[];

  @ApiProperty({ type: [CaseEvidenceView], description: 'oldest first' })
  evidence: CaseEvidenceView[];

  @ApiProperty({
    type: [CaseOperationView],
    description: 'the operations of the alerts and the evidence, oldest first, at most the first 100 (the rest: `operationsNextCursor`)',
  })
  operations: CaseOperationView[];

  @ApiProperty({ description: 'how many operations the case has in all', example: 3 })
  operationsTotal: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'when the case has more operations than shown: `cursor` of GET /api/v1/compliance/cases/{caseId}/operations for the next ones',
    example: null,
  })
  operationsNextCursor: string | null;

  @ApiProperty({ type: [CaseEventView], description: 'the full history, oldest first (append-only)' })
  history: CaseEventView[];
}

export class CaseDecisionView {
  @ApiProperty({ type: CaseDetailView, description: 'the case after the decision' })
  case: CaseDetailView;

  @ApiProperty({
    type: ApprovalRequestView,
    nullable: true,
    description: 'FREEZE: the CASE_FREEZE request, PENDING until a second officer approves it (never one-person)',
  })
  approvalRequest: ApprovalRequestView | null;
}
