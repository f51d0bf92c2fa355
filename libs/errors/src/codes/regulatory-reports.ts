/** Regulatory reports: the daily threshold report and suspicion reports (`/api/v1/compliance/reports`). Never rename or re-status a shipped code; append new ones. */
export const REGULATORY_REPORTS_ERRORS = {
  REPORT_NOT_FOUND: { status: 404, message: 'No regulatory report has this id' },
  REPORT_DAY_NOT_OVER: {
    status: 409,
    message:
      'A daily report covers a whole day that is over in the reports’ time zone (UTC+01:00), once the settle margin after its end has passed; this day is not there yet',
  },
  REPORT_PERIOD_INVALID: { status: 400, message: 'The period asked for is empty or too long' },
  REPORT_KIND_MISMATCH: { status: 409, message: 'This step does not apply to this kind of report' },
  REPORT_STATE_CONFLICT: { status: 409, message: 'The report is not in a state that allows this step' },
  REPORT_TIME_IN_FUTURE: { status: 422, message: 'The time given is in the future' },
  REPORT_TIME_BEFORE_GENERATION: { status: 422, message: 'The time given is before the report was made' },
  REPORT_TIME_BEFORE_FILING: { status: 422, message: 'The written confirmation cannot be sent before the report was filed' },
  CASE_ALREADY_REPORTED: { status: 409, message: 'A suspicion report was already made from this case' },
} as const satisfies Record<string, { status: number; message: string }>;
