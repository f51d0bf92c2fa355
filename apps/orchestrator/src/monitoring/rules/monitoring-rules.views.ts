import { ApiProperty } from '@nestjs/swagger';
import { RULE_CODES } from './monitoring-rule';
import { MonitoringDocumentDto } from './monitoring-document';

export class RuleStateView {
  @ApiProperty({ enum: RULE_CODES, example: 'STRUCTURING' })
  code: string;

  @ApiProperty({ example: true })
  enabled: boolean;
}

export class MonitoringRulesView {
  @ApiProperty({ description: 'the version of the monitoring section in force; every alert records the version it ran under', example: 1 })
  version: number;

  @ApiProperty({ example: 'system:migration', description: 'who made this version' })
  createdBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: 'Initial monitoring rules (docs/monitoring.md); to be tuned by compliance' })
  reason: string;

  @ApiProperty({ type: [RuleStateView], description: 'every rule, in the order the feed runs them' })
  rules: RuleStateView[];

  @ApiProperty({
    type: MonitoringDocumentDto,
    description: 'the thresholds in force (changed by POST /api/config/monitoring/versions, under CONFIG_CHANGE)',
  })
  document: MonitoringDocumentDto;
}

export class RuleFailureView {
  @ApiProperty({ example: '42' })
  id: string;

  @ApiProperty({ enum: RULE_CODES, example: 'PASS_THROUGH' })
  rule: string;

  @ApiProperty({
    format: 'uuid',
    description: 'the ledger event (outbox row) being judged when the rule first failed in this batch',
    example: '0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d',
  })
  eventId: string;

  @ApiProperty({ example: 1 })
  configVersion: number;

  @ApiProperty({ example: "Cannot read properties of undefined (reading 'amount')" })
  error: string;

  @ApiProperty({ description: 'how many judgements of this rule failed in the batch (the error is the first one)', example: 3, minimum: 1 })
  occurrences: number;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the monitoring-events job of the batch (null when the feed was called without one)',
    example: 'batch-3f1c0e5a9b7d2c4e6f8a0b1c2d3e4f5a6b7c8d9e',
  })
  batchId: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:01.000Z' })
  at: string;
}

export class RuleFailurePageView {
  @ApiProperty({ type: [RuleFailureView], description: 'newest first' })
  items: RuleFailureView[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last page', example: null })
  nextCursor: string | null;
}
