/** SQLSTATEs the ledger replays a money transaction on (spec 2 "Concurrency rules" 3 and 4). */
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
