/*
 * The shape of a confirm for the database: ONE value of the composite type `ledger.confirm_call`
 * (apps/ledger-wallets/sql/execute_confirm.sql), the same for a confirm alone
 * (`ledger.confirm_checked`, `ledger.execute_confirm`) and for each element of a group commit's
 * batch (`ledger.execute_confirm_batch`, an array of them). TransferExecutor.plan builds it.
 */

/** One confirm, as `ledger.confirm_call`'s attributes (names and order: `CONFIRM_CALL_FIELDS`). jsonb values are JSON text. */
export interface ConfirmCall {
  intent_id: string;
  /** the statuses a confirm may start from (the state machine's) */
  from_statuses: readonly string[];
  /** the clock the intent's expiry is checked against */
  now: Date;
  /** every account the call locks and writes, ascending, lower-case */
  account_ids: string[];
  source_id: string;
  destination_id: string;
  amount: number;
  fee: number;
  commission: number;
  currency: string;
  fee_account_id: string | null;
  commission_from_id: string | null;
  commission_to_id: string | null;
  payee_balance_cap: number | null;
  transaction_id: string;
  reference_id: string;
  created_by: string | null;
  type_code: string | null;
  agent_id: string | null;
  description: string | null;
  extra: string | null;
  correlation_id: string | null;
  entries: string;
  deltas: string;
  actor_id: string;
  ip: string | null;
  user_agent: string | null;
  event_metadata: string;
  outbox_id: string;
  event_type: string;
  payload: string;
  idem_scope: string | null;
  idem_key: string | null;
  idem_hash: string | null;
  idem_status: number | null;
  idem_body: string | null;
  idem_ttl_hours: number | null;
}

/** `ledger.confirm_call`'s attributes in order (a test compares them with the type's). */
export const CONFIRM_CALL_FIELDS = [
  'intent_id',
  'from_statuses',
  'now',
  'account_ids',
  'source_id',
  'destination_id',
  'amount',
  'fee',
  'commission',
  'currency',
  'fee_account_id',
  'commission_from_id',
  'commission_to_id',
  'payee_balance_cap',
  'transaction_id',
  'reference_id',
  'created_by',
  'type_code',
  'agent_id',
  'description',
  'extra',
  'correlation_id',
  'entries',
  'deltas',
  'actor_id',
  'ip',
  'user_agent',
  'event_metadata',
  'outbox_id',
  'event_type',
  'payload',
  'idem_scope',
  'idem_key',
  'idem_hash',
  'idem_status',
  'idem_body',
  'idem_ttl_hours',
] as const satisfies readonly (keyof ConfirmCall)[];

/** One element of a composite or array literal, quoted (PostgreSQL's rules: `"` and `\` escaped by `\`). */
const quoted = (text: string): string => `"${text.replace(/["\\]/g, '\\$&')}"`;

function fieldText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map((v) => quoted(String(v))).join(',')}}`;
  return String(value);
}

/**
 * The text of a `ledger.confirm_call` value: `(f1,f2,…)`, every non-null field quoted, a null field
 * empty. Bound as one parameter (`$n::ledger.confirm_call`), or an element of a batch's array, the
 * database reads it with the type's own input function: nothing is parsed twice.
 */
export function confirmCallLiteral(call: ConfirmCall): string {
  return `(${CONFIRM_CALL_FIELDS.map((field) => {
    const value = call[field];
    return value === null || value === undefined ? '' : quoted(fieldText(value));
  }).join(',')})`;
}

/** `ledger.execute_confirm` inside a transaction that holds the locks (the deprecated in-transaction path, tests, benches). */
export const EXECUTE_CONFIRM_CALL = 'SELECT * FROM ledger.execute_confirm($1::ledger.confirm_call)';

/** `ledger.confirm_checked`: keys to lock, keys to release, lock timeout, the call, then its 7 OUT parameters (LedgerDb.confirm). */
export const CONFIRM_CHECKED_CALL =
  'CALL ledger.confirm_checked($1, $2, $3, $4::ledger.confirm_call, NULL, NULL, NULL, NULL, NULL, NULL, NULL)';

/** `ledger.execute_confirm_batch`: every confirm of a group commit's batch, in order, as one array. */
export const EXECUTE_CONFIRM_BATCH_CALL = 'SELECT * FROM ledger.execute_confirm_batch($1::ledger.confirm_call[])';

/** The values of `EXECUTE_CONFIRM_BATCH_CALL`: the calls' literals as one array (node-postgres quotes each element). */
export function confirmBatchValues(calls: ConfirmCall[]): [string[]] {
  return [calls.map(confirmCallLiteral)];
}
