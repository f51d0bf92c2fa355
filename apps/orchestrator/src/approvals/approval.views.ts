import { ApiProperty } from '@nestjs/swagger';
import { APPROVAL_ACTIONS, APPROVAL_STATUSES, type ApprovalAction, type ApprovalStatus } from './approval-handler';

export class ApprovalActorView {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  userId: string;

  @ApiProperty({ example: 'ADMIN' })
  role: string;
}

export class ApprovalTargetView {
  @ApiProperty({ enum: ['account', 'transaction', 'agent', 'customer', 'user', 'config', 'integration', 'api-key'], example: 'agent' })
  type: string;

  @ApiProperty({ example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92' })
  id: string;
}

export class ApprovalAmountView {
  @ApiProperty({ type: 'integer', example: 500000, description: 'smallest currency unit' })
  value: number;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;
}

export class ApprovalFailureView {
  @ApiProperty({ example: 'INSUFFICIENT_BALANCE' })
  code: string;

  @ApiProperty({ example: 'Insufficient balance' })
  message: string;
}

/** One maker-checker request, as the inbox, its detail page and every submitting route show it. */
export class ApprovalRequestView {
  @ApiProperty({ format: 'uuid', example: '0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d' })
  id: string;

  @ApiProperty({ enum: APPROVAL_ACTIONS, example: 'FLOAT_FUNDING' })
  action: ApprovalAction;

  @ApiProperty({
    enum: APPROVAL_STATUSES,
    example: 'PENDING',
    description:
      'PENDING: waiting for a checker; EXECUTING: approved, being carried out; EXECUTED; REJECTED; EXPIRED: nobody decided in time; FAILED: approved but refused where it runs (see failure), submit again',
  })
  status: ApprovalStatus;

  @ApiProperty({ description: 'false when configuration lets this action run on its maker’s word alone', example: true })
  fourEyes: boolean;

  @ApiProperty({ type: ApprovalTargetView })
  target: ApprovalTargetView;

  @ApiProperty({ example: 'Fund the float of agent +237690000003 with 500 000 XAF' })
  summary: string;

  @ApiProperty({ type: ApprovalAmountView, nullable: true })
  amount: ApprovalAmountView | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'exactly what will be carried out (the validated payload; its fields depend on the action)',
    example: {
      agentId: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
      amount: 500000,
      currency: 'XAF',
      reason: 'Float top-up agreed with the agent network manager',
    },
  })
  payload: Record<string, unknown>;

  @ApiProperty({ example: 'Float top-up agreed with the agent network manager' })
  reason: string;

  @ApiProperty({ type: ApprovalActorView })
  maker: ApprovalActorView;

  @ApiProperty({ type: ApprovalActorView, nullable: true })
  checker: ApprovalActorView | null;

  @ApiProperty({ type: String, nullable: true, example: 'Checked against the bank statement' })
  decisionReason: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'what the execution produced (ids, the new version); null until executed',
    example: {
      correctionId: '6d2f8a1c-4b3e-4f5a-9c7d-1e2f3a4b5c6d',
      transactionId: '9b2f6d1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f',
      referenceId: 'MMPTX261128Q4W7E2R',
    },
  })
  result: Record<string, unknown> | null;

  @ApiProperty({ type: ApprovalFailureView, nullable: true })
  failure: ApprovalFailureView | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:12:45.120Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-29T09:12:45.120Z' })
  expiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  decidedAt: string | null;
}
