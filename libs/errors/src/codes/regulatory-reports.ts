/** Regulatory reports: the daily threshold report and suspicion reports (`/api/v1/compliance/reports`). Never rename or re-status a shipped code; append new ones. */
export const REGULATORY_REPORTS_ERRORS = {
  REPORT_NOT_FOUND: { status: 404, message: 'No regulatory report has this id' },
} as const satisfies Record<string, { status: number; message: string }>;
