/**
 * SQLSTATEs the ledger replays a money transaction on
 * (docs/ledger.md "Locks, isolation and retries", step 3).
 */
export const RETRYABLE_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available (lock_timeout)
]);

export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : e.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

export function constraintName(error: unknown): string | undefined {
  const e = error as { constraint?: unknown; driverError?: { constraint?: unknown } } | undefined;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return typeof name === 'string' ? name : undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  return sqlState(error) === '23505' && (constraint === undefined || constraintName(error) === constraint);
}

/** CHECK constraints keeping money columns within ±(2^53 − 1) (migration 1764000100000). */
export const MONEY_RANGE_CONSTRAINTS = new Set([
  'CHK_accounts_money_range',
  'CHK_transactions_money_range',
  'CHK_ledgers_money_range',
  'CHK_transaction_intents_money_range',
]);

/** The deferred double-entry checks run at COMMIT (migration 1764000100000). */
export const DOUBLE_ENTRY_CONSTRAINTS = new Set(['CHK_transactions_balanced', 'CHK_transactions_entry_count', 'CHK_transactions_closed']);

export function isCheckViolation(error: unknown, names: Set<string>): boolean {
  const name = constraintName(error);
  return sqlState(error) === '23514' && name !== undefined && names.has(name);
}
