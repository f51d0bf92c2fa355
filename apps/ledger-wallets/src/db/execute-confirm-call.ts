import { lit, textArrayLit, uuidArrayLit, uuidLit } from './sql-literal';

/*
 * The shape of a call of `ledger.execute_confirm` (migration 1764300000000): its parameters in
 * order, the two prepared forms (the function inside a locked transaction, the procedure around
 * it) and the text form a group commit batches. TransferExecutor.plan builds the values.
 */

/** `ledger.execute_confirm`'s parameters in order, each with how its value is written as a literal. */
const EXECUTE_CONFIRM_PARAMS: [name: string, kind: 'uuid' | 'uuid[]' | 'text' | 'text[]' | 'int' | 'timestamptz' | 'jsonb'][] = [
  ['p_intent_id', 'uuid'],
  ['p_from_statuses', 'text[]'],
  ['p_now', 'timestamptz'],
  ['p_account_ids', 'uuid[]'],
  ['p_source_id', 'uuid'],
  ['p_destination_id', 'uuid'],
  ['p_amount', 'int'],
  ['p_fee', 'int'],
  ['p_commission', 'int'],
  ['p_currency', 'text'],
  ['p_fee_account_id', 'uuid'],
  ['p_commission_from_id', 'uuid'],
  ['p_commission_to_id', 'uuid'],
  ['p_rules', 'jsonb'],
  ['p_transaction_id', 'uuid'],
  ['p_reference_id', 'text'],
  ['p_completed_at', 'timestamptz'],
  ['p_created_by', 'text'],
  ['p_type_code', 'text'],
  ['p_agent_id', 'text'],
  ['p_description', 'text'],
  ['p_extra', 'jsonb'],
  ['p_correlation_id', 'text'],
  ['p_entries', 'jsonb'],
  ['p_deltas', 'jsonb'],
  ['p_actor_id', 'text'],
  ['p_ip', 'text'],
  ['p_user_agent', 'text'],
  ['p_event_metadata', 'jsonb'],
  ['p_outbox_id', 'uuid'],
  ['p_event_type', 'text'],
  ['p_payload', 'jsonb'],
  ['p_idem_scope', 'text'],
  ['p_idem_key', 'text'],
  ['p_idem_hash', 'text'],
  ['p_idem_status', 'int'],
  ['p_idem_body', 'text'],
  ['p_idem_ttl_hours', 'int'],
];

const placeholders = (from: number, count: number): string => Array.from({ length: count }, (_, k) => `$${from + k}`).join(', ');

/** The call of `ledger.execute_confirm` with its parameters bound, inside a transaction that holds the locks. */
export const EXECUTE_CONFIRM_CALL = `SELECT * FROM ledger.execute_confirm(${placeholders(1, EXECUTE_CONFIRM_PARAMS.length)})`;

/**
 * `ledger.confirm_checked`: keys to lock, keys to release, lock timeout, then `execute_confirm`'s
 * parameters, then its 6 OUT ones (LedgerDb.confirm).
 */
export const CONFIRM_CHECKED_CALL = `CALL ledger.confirm_checked(${placeholders(1, 3 + EXECUTE_CONFIRM_PARAMS.length)}, NULL, NULL, NULL, NULL, NULL, NULL)`;

/**
 * The call of `ledger.execute_confirm` as one text statement, every value a literal (sql-literal.ts):
 * for a group commit's batch, several calls in one simple-protocol query, which takes no parameters.
 */
export function executeConfirmSql(args: unknown[]): string {
  const parts = EXECUTE_CONFIRM_PARAMS.map(([name, kind], k) => {
    const v = args[k];
    if (v === null || v === undefined) return `${name} => NULL::${kind}`;
    switch (kind) {
      case 'uuid':
        return `${name} => ${uuidLit(v as string)}`;
      case 'uuid[]':
        return `${name} => ${uuidArrayLit(v as string[])}`;
      case 'text[]':
        return `${name} => ${textArrayLit(v as string[])}`;
      case 'jsonb':
        return `${name} => ${lit(v as string)}::jsonb`;
      case 'timestamptz':
        return `${name} => ${lit(v as Date)}`;
      case 'int':
        return `${name} => ${lit(v as number)}`;
      default:
        return `${name} => ${lit(v as string)}::text`;
    }
  });
  return `SELECT * FROM ledger.execute_confirm(${parts.join(', ')})`;
}
