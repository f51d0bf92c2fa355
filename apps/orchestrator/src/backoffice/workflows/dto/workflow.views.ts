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

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
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

  @ApiProperty({
    format: 'uuid',
    description: 'the user id the run chose (it exists only if the run got that far and was not undone)',
    example: '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b',
  })
  userId: string;

  @ApiProperty({ format: 'uuid', description: 'the customer or staff id the run chose', example: '6c5b4a3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d' })
  profileId: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the wallet, once opened',
    example: '4ac4573d-9a58-44ce-92cf-f46fab963969',
  })
  walletId: string | null;
}

export class WorkflowView {
  @ApiProperty({ format: 'uuid', example: '1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b' })
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

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: '2e4f6a8c-0b1d-4f3e-9a5c-7e9b1d3f5a7c' })
  correlationId: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the administrator who asked (staff registrations)',
    example: null,
  })
  requestedBy: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:06:12.345Z' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', description: 'the last event of its log', example: '2026-11-22T10:06:12.345Z' })
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
    example: 'WyIyMDI2LTExLTIyVDEwOjA2OjEyLjM0NTY3OFoiLCIwZDVlMmY5YS03YzFiLTRhM2UtOWY4ZC0yYjZjNGUxYTBmMzciXQ',
  })
  nextCursor: string | null;
}
