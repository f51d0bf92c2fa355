/*
 * The shape of a call of `ledger.execute_confirm` (migration 1764300000000): its parameters in
 * order and its two prepared forms, the function inside a locked transaction (a group commit's
 * batch, the direct transfer) and the procedure around it (a confirm alone).
 * TransferExecutor.plan builds the values.
 */

/** `ledger.execute_confirm`'s parameters in order (TransferExecutor.plan's `args`). */
const EXECUTE_CONFIRM_PARAMS = [
  'p_intent_id',
  'p_from_statuses',
  'p_now',
  'p_account_ids',
  'p_source_id',
  'p_destination_id',
  'p_amount',
  'p_fee',
  'p_commission',
  'p_currency',
  'p_fee_account_id',
  'p_commission_from_id',
  'p_commission_to_id',
  'p_rules',
  'p_transaction_id',
  'p_reference_id',
  'p_completed_at',
  'p_created_by',
  'p_type_code',
  'p_agent_id',
  'p_description',
  'p_extra',
  'p_correlation_id',
  'p_entries',
  'p_deltas',
  'p_actor_id',
  'p_ip',
  'p_user_agent',
  'p_event_metadata',
  'p_outbox_id',
  'p_event_type',
  'p_payload',
  'p_idem_scope',
  'p_idem_key',
  'p_idem_hash',
  'p_idem_status',
  'p_idem_body',
  'p_idem_ttl_hours',
] as const;

const placeholders = (from: number, count: number): string => Array.from({ length: count }, (_, k) => `$${from + k}`).join(', ');

/** The call of `ledger.execute_confirm` with its parameters bound, inside a transaction that holds the locks. */
export const EXECUTE_CONFIRM_CALL = `SELECT * FROM ledger.execute_confirm(${placeholders(1, EXECUTE_CONFIRM_PARAMS.length)})`;

/**
 * `ledger.confirm_checked`: keys to lock, keys to release, lock timeout, then `execute_confirm`'s
 * parameters, then its 6 OUT ones (LedgerDb.confirm).
 */
export const CONFIRM_CHECKED_CALL = `CALL ledger.confirm_checked(${placeholders(1, 3 + EXECUTE_CONFIRM_PARAMS.length)}, NULL, NULL, NULL, NULL, NULL, NULL)`;
