import { ApiProperty } from '@nestjs/swagger';
import { REGISTRATION_KINDS } from '../../../registration/registration.types';

export class WorkflowErrorView {
  @ApiProperty({ example: 'UPSTREAM_UNAVAILABLE' })
  code: string;

  @ApiProperty({ example: 'ledger-wallets is unavailable' })
  message: string;

  @ApiProperty({ type: 'integer', example: 503 })
  status: number;
}

/** One line of a run's saga log. */
export class WorkflowStepView {
  @ApiProperty({
    example: 'WALLET',
    description: 'the step (IDP_USER, LOCAL_USER, PROFILE, MERCHANT, AGENT, WALLET, NOTIFICATION, ACTIVATION)',
  })
  step: string;

  @ApiProperty({
    enum: ['started', 'done', 'failed', 'compensating', 'compensated', 'compensation_failed'],
    description: 'started / done / failed going forward; compensating / compensated / compensation_failed while undoing',
  })
  event: string;

  @ApiProperty({ type: WorkflowErrorView, nullable: true, description: 'what the step or its undo failed with' })
  error: WorkflowErrorView | null;

  @ApiProperty({ format: 'date-time' })
  at: string;
}

/** Who the run was registering, from its stored context (never a PIN: it is not stored). */
export class WorkflowSubjectView {
  @ApiProperty({ example: 'Awa' })
  firstName: string;

  @ApiProperty({ example: 'Ndiaye' })
  lastName: string;

  @ApiProperty({ example: 'CUSTOMER' })
  role: string;

  @ApiProperty({ format: 'uuid', description: 'the user id the run chose (it exists only if the run got that far and was not undone)' })
  userId: string;

  @ApiProperty({ format: 'uuid', description: 'the customer or staff id the run chose' })
  profileId: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the wallet, once opened' })
  walletId: string | null;
}

export class WorkflowView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: REGISTRATION_KINDS, example: 'REGISTER_CUSTOMER' })
  kind: string;

  @ApiProperty({
    enum: ['running', 'succeeded', 'compensating', 'compensated', 'compensation_failed'],
    description:
      'running / compensating: not finished (a run quiet for a while is picked up by the recovery job); compensated: undone; compensation_failed: an undo failed, something may be left half-created',
  })
  state: string;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ type: WorkflowSubjectView, nullable: true })
  subject: WorkflowSubjectView | null;

  @ApiProperty({ type: WorkflowErrorView, nullable: true, description: 'the error the run ended with, as the client got it' })
  error: WorkflowErrorView | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  correlationId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the administrator who asked (staff registrations)' })
  requestedBy: string | null;

  @ApiProperty({ format: 'date-time' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', description: 'the last event of its log' })
  updatedAt: string;

  @ApiProperty({ type: [WorkflowStepView], description: 'the saga log, oldest first' })
  steps: WorkflowStepView[];
}

export class WorkflowPageView {
  @ApiProperty({ type: [WorkflowView] })
  items: WorkflowView[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'pass as cursor, with the same filters, for the next page; null on the last one',
  })
  nextCursor: string | null;
}
