import type { ErrorCode } from '@mm/errors';

export type SagaStatus = 'running' | 'succeeded' | 'compensating' | 'compensated' | 'compensation_failed';
export type StepEvent = 'started' | 'done' | 'failed' | 'compensating' | 'compensated' | 'compensation_failed';

/** The error a run ended with, as the client got it. */
export interface SagaError {
  code: ErrorCode;
  message: string;
  status: number;
}

/**
 * One step of a workflow. `run` must be idempotent (the same context again does nothing more) and
 * may answer an updated context (ids the step learnt); `undo` must be idempotent and succeed when
 * there is nothing to undo, because a step is undone whenever it may have happened (started, even
 * if it failed or its outcome is unknown after a crash).
 */
export interface SagaStep<C> {
  name: string;
  run(context: C, secret: string | undefined): Promise<C | void>;
  undo(context: C): Promise<void>;
}

export interface SagaRecord<C> {
  id: string;
  kind: string;
  status: SagaStatus;
  idempotencyKey: string | null;
  requestHash: string;
  phone: string;
  context: C;
  result: unknown;
  error: SagaError | null;
  correlationId: string | null;
  requestedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const FINAL_STATUSES: readonly SagaStatus[] = ['succeeded', 'compensated', 'compensation_failed'];
