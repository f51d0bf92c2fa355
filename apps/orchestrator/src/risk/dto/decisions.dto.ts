import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { RISK_REASONS, type RiskReason, type RiskSignal } from '../risk.types';

export class DecisionsQueryDto {
  @ApiProperty({
    description: "the operation id (the intent's idempotencyKey)",
    example: '5d1b2c3e-4f50-4a61-8b72-9c83d4e5f607',
    maxLength: 200,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  operationId: string;
}

class RiskSignalView {
  @ApiProperty({ example: 'VELOCITY' })
  rule: string;

  @ApiProperty({ enum: ['PASS', 'FLAG', 'REJECT', 'SKIPPED', 'UNAVAILABLE'], example: 'PASS' })
  outcome: string;

  @ApiProperty({
    required: false,
    type: Object,
    additionalProperties: true,
    description: 'evidence (counts, thresholds, matched list entries)',
    example: { windowSeconds: 600, initiator: 3, max: 10 },
  })
  detail?: Record<string, unknown>;
}

export class RiskDecisionView {
  @ApiProperty({ format: 'uuid', example: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d' })
  decisionId: string;

  @ApiProperty({ example: '5d1b2c3e-4f50-4a61-8b72-9c83d4e5f607' })
  operationId: string;

  @ApiProperty({ enum: ['CREATE', 'CONFIRM'], example: 'CREATE' })
  stage: string;

  @ApiProperty({ enum: ['ACCEPT', 'REJECT'], example: 'ACCEPT' })
  outcome: string;

  @ApiProperty({ enum: RISK_REASONS, nullable: true, example: null })
  reasonCode: RiskReason | null;

  @ApiProperty({ description: 'risk configuration version applied', example: 1 })
  rulesVersion: number;

  @ApiProperty({ type: [RiskSignalView] })
  signals: RiskSignal[];

  @ApiProperty({ format: 'date-time', example: '2026-11-20T08:00:00.000Z' })
  createdAt: string;
}

export class RiskDecisionsView {
  @ApiProperty({ type: [RiskDecisionView], description: 'oldest first' })
  decisions: RiskDecisionView[];
}
