import { ApiProperty } from '@nestjs/swagger';
import { ApprovalFailureView, ApprovalRequestView } from '../approval.views';

export class ApprovalPageView {
  @ApiProperty({ type: [ApprovalRequestView], description: 'newest first' })
  items: ApprovalRequestView[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last one', example: null })
  nextCursor: string | null;
}

export const DECISION_REFUSALS = [
  'APPROVAL_SELF_DECISION',
  'APPROVAL_EXPIRED',
  'APPROVAL_ALREADY_DECIDED',
  'APPROVAL_COMPLIANCE_REQUIRED',
  'APPROVAL_CHECKER_CONCERNED',
  'FORBIDDEN',
] as const;

export class ApprovalViewerView {
  @ApiProperty({
    description: 'whether the caller may approve or reject this request now (the console shows the buttons only then)',
    example: false,
  })
  canDecide: boolean;

  @ApiProperty({
    enum: DECISION_REFUSALS,
    nullable: true,
    example: 'APPROVAL_SELF_DECISION',
    description: 'why not, as the error code a decision would get',
  })
  reasonIfNot: (typeof DECISION_REFUSALS)[number] | null;
}

export class ApprovalDetailView {
  @ApiProperty({ type: ApprovalRequestView })
  request: ApprovalRequestView;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      "what approving would do, computed now by the action's handler: a configuration change's differences from the version in force, a correction's postings…",
    example: { section: 'risk', baseVersion: 1, activeVersion: 1, changes: [{ path: 'velocity.maxPerHour', before: 10, after: 20 }] },
  })
  preview: unknown;

  @ApiProperty({ type: ApprovalViewerView })
  viewer: ApprovalViewerView;
}

export class DecisionOutcomeView {
  @ApiProperty({ format: 'uuid', example: '0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d' })
  id: string;

  @ApiProperty({
    enum: ['EXECUTED', 'FAILED', 'REJECTED', 'REFUSED'],
    description: 'REFUSED: the decision was not taken (see error); FAILED: approved, then refused where it runs (see request.failure)',
    example: 'EXECUTED',
  })
  outcome: 'EXECUTED' | 'FAILED' | 'REJECTED' | 'REFUSED';

  @ApiProperty({ type: ApprovalRequestView, nullable: true, description: 'the request after the decision; null when refused' })
  request: ApprovalRequestView | null;

  @ApiProperty({ type: ApprovalFailureView, nullable: true, description: 'the code and message of the refusal', example: null })
  error: ApprovalFailureView | null;
}

export class DecisionsView {
  @ApiProperty({ type: [DecisionOutcomeView], description: 'one per id, in the order given' })
  results: DecisionOutcomeView[];
}
