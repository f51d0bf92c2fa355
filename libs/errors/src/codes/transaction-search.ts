/**
 * The back office's reads of operations (`/api/backoffice/transactions`, the story of one payment,
 * `/api/backoffice/workflows`). Never rename or re-status a shipped code; append new ones.
 */
export const TRANSACTION_SEARCH_ERRORS = {
  WORKFLOW_NOT_FOUND: { status: 404, message: 'Workflow run not found' },
  STORY_PART_UNAVAILABLE: {
    status: 503,
    message: 'This part of the payment story could not be read now; the other parts are shown',
  },
} as const satisfies Record<string, { status: number; message: string }>;
