/** Transaction monitoring: rules, alerts and cases (`/api/v1/compliance/alerts`, `/cases`). Never rename or re-status a shipped code; append new ones. */
export const MONITORING_ERRORS = {
  ALERT_NOT_FOUND: { status: 404, message: 'No monitoring alert has this id' },
  CASE_NOT_FOUND: { status: 404, message: 'No compliance case has this id' },
} as const satisfies Record<string, { status: number; message: string }>;
