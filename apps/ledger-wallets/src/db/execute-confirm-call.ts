/*
 * The shape of a call of `ledger.execute_confirm` (migration 1765601200000): its parameters in
 * order and its two prepared forms, the function inside a locked transaction (a group commit's
 * batch, the direct transfer) and the procedure around it (a confirm alone).
 * TransferExecutor.plan builds the values.
 */

/** `ledger.execute_confirm`'s parameters in order (TransferExecutor.plan's `args`). */
export const EXECUTE_CONFIRM_PARAMS = [
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
  'p_payee_balance_cap',
  'p_rules',
  'p_transaction_id',
  'p_reference_id',
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
 * parameters, then its 7 OUT ones (LedgerDb.confirm).
 */
export const CONFIRM_CHECKED_CALL = `CALL ledger.confirm_checked(${placeholders(1, 3 + EXECUTE_CONFIRM_PARAMS.length)}, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`;

/** Parameters of `execute_confirm` that are jsonb and arrive in `args` as JSON text (TransferExecutor.plan). */
const JSON_TEXT_PARAMS = new Set(['p_extra', 'p_entries', 'p_deltas', 'p_event_metadata', 'p_payload']);
const RULES_AT = EXECUTE_CONFIRM_PARAMS.indexOf('p_rules');

/** The call of `ledger.execute_confirm_batch` (migration 1765000000000): the rules once, then every call as JSON. */
export const EXECUTE_CONFIRM_BATCH_CALL = 'SELECT * FROM ledger.execute_confirm_batch($1, $2)';

/**
 * The values of `EXECUTE_CONFIRM_BATCH_CALL` for the calls of a batch, each given as the values of
 * one `execute_confirm` call: the rules (the same for every call; a batch mixing two sets of rules
 * is a bug) and a JSON array of `ledger.confirm_call` objects, whose fields are the parameters
 * without their `p_`.
 */
export function confirmBatchValues(calls: unknown[][]): [string, string] {
  const rules = calls[0]?.[RULES_AT];
  const objects = calls.map((args) => {
    if (args.length !== EXECUTE_CONFIRM_PARAMS.length) throw new Error(`a confirm call has ${args.length} values`);
    if (args[RULES_AT] !== rules) throw new Error('the calls of one batch must share their rules');
    const fields: string[] = [];
    EXECUTE_CONFIRM_PARAMS.forEach((name, k) => {
      if (k === RULES_AT) return;
      const value = args[k] ?? null;
      // The jsonb values are pasted as they are: TransferExecutor.plan made each with JSON.stringify,
      // so each is one JSON value (what a caller wrote is inside it, escaped).
      const json = JSON_TEXT_PARAMS.has(name) && value !== null ? String(value) : JSON.stringify(value);
      fields.push(`"${name.slice(2)}":${json}`);
    });
    return `{${fields.join(',')}}`;
  });
  return [String(rules), `[${objects.join(',')}]`];
}
