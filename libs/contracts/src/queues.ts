/** BullMQ queue names. A job id is deterministic wherever a duplicate must be a no-op. */
export const QUEUES = {
  /** ledger outbox relay → consumers (partners); one job per relay batch (`LEDGER_EVENT_BATCH_JOB`), or per event with LEDGER_OUTBOX_BATCH_JOBS=false */
  ledgerEvents: 'ledger-events',
  /** the same relay batches, for the orchestrator's transaction monitoring (a second consumer of `ledger-events` would take partners' jobs); same job ids */
  monitoringEvents: 'monitoring-events',
  /** partner webhooks; job id = event id */
  webhooks: 'webhooks',
} as const;
