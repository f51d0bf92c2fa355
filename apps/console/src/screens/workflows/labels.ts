import type { components } from '../../api/schema';

export type Workflow = components['schemas']['WorkflowView'];
export type WorkflowKind = Workflow['kind'];
export type WorkflowState = Workflow['state'];
export type Step = components['schemas']['WorkflowStepView'];

export const KIND_LABELS: Record<WorkflowKind, string> = {
  REGISTER_CUSTOMER: 'Customer registration',
  REGISTER_MERCHANT: 'Merchant registration',
  REGISTER_AGENT: 'Agent registration',
  REGISTER_ADMIN: 'Administrator registration',
  REGISTER_STAFF: 'Staff registration',
};

export const STATE_LABELS: Record<WorkflowState, string> = {
  running: 'Running (not finished)',
  succeeded: 'Succeeded',
  compensating: 'Being undone',
  compensated: 'Undone (compensated)',
  compensation_failed: 'Undoing failed',
};

export const STATE_COLORS: Record<WorkflowState, string> = {
  running: 'blue',
  succeeded: 'green',
  compensating: 'yellow',
  compensated: 'gray',
  compensation_failed: 'red',
};

export const STEP_COLORS: Record<Step['event'], string> = {
  started: 'blue',
  done: 'green',
  failed: 'red',
  compensating: 'yellow',
  compensated: 'gray',
  compensation_failed: 'red',
};

/** Badges inside table cells keep their whole word. */
export const CELL_BADGE = { label: { overflow: 'visible' } } as const;
