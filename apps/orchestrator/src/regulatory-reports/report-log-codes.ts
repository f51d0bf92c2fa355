/**
 * Stable codes of the log lines the reports' jobs write (not HTTP answers): an alerting rule matches
 * on `code` (docs/regulatory-reports.md "Alerts").
 */
export const REPORT_LOG_CODES = {
  /** ERROR, once per report: a suspicion report filed by phone or electronically has gone 48 hours without its written confirmation */
  CONFIRMATION_OVERDUE: 'REGULATORY_CONFIRMATION_OVERDUE',
  /** WARN, once per report: the same deadline is less than REGULATORY_CONFIRMATION_DUE_SOON_HOURS away */
  CONFIRMATION_DUE_SOON: 'REGULATORY_CONFIRMATION_DUE_SOON',
  /** ERROR: the scheduled daily threshold report could not be generated; the next tick tries again */
  DAILY_REPORT_FAILED: 'REGULATORY_DAILY_REPORT_FAILED',
} as const;
