/**
 * Stable codes of the log lines the reports' jobs write (not HTTP answers): an alerting rule matches
 * on `code` (docs/regulatory-reports.md "Alerts").
 */
export const REPORT_LOG_CODES = {
  /** ERROR, once per report: a suspicion report filed by phone or electronically has gone 48 hours without its written confirmation */
  CONFIRMATION_OVERDUE: 'REGULATORY_CONFIRMATION_OVERDUE',
  /** WARN, once per report: the same deadline is less than REGULATORY_CONFIRMATION_DUE_SOON_HOURS away */
  CONFIRMATION_DUE_SOON: 'REGULATORY_CONFIRMATION_DUE_SOON',
  /** ERROR, once per report: a suspicion report was not filed within REGULATORY_FILING_DUE_HOURS of being made */
  FILING_OVERDUE: 'REGULATORY_FILING_OVERDUE',
  /** WARN, once per report: the filing deadline is less than REGULATORY_CONFIRMATION_DUE_SOON_HOURS away */
  FILING_DUE_SOON: 'REGULATORY_FILING_DUE_SOON',
  /** ERROR: an overdue alert could not be posted to the compliance channel (COMPLIANCE_ALERT_URL); not tried again */
  ALERT_NOT_DELIVERED: 'REGULATORY_ALERT_NOT_DELIVERED',
  /** ERROR: the scheduled daily threshold report could not be generated; the next tick tries again */
  DAILY_REPORT_FAILED: 'REGULATORY_DAILY_REPORT_FAILED',
} as const;
