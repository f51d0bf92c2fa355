/** BullMQ queue names. A job id is deterministic wherever a duplicate must be a no-op. */
export const QUEUES = {
  /** ledger outbox relay → consumers (partners); job id = outbox row id */
  ledgerEvents: 'ledger-events',
  /** partner webhooks; job id = event id */
  webhooks: 'webhooks',
} as const;
