import { AppException } from '@mm/errors';

/**
 * The bounds of a commission no pricing grid could exceed, checked on every execution context
 * before anything is locked or queued, whoever the caller is: the ledger does not trust its caller
 * to have priced the operation. A grid pays the agent a share of the operation, so a commission
 * above the amount itself is never a grid's; and above `ceiling` (LEDGER_COMMISSION_MAX_PER_OPERATION)
 * the treasury would pay out more on one operation than operators allow, however the grid was set.
 */
export function checkCommissionBounds(amount: number, commission: number, ceiling: number): void {
  if (commission <= 0) return;
  if (commission > amount) {
    throw new AppException('COMMISSION_OUT_OF_RANGE', `A commission of ${commission} exceeds the operation's amount of ${amount}`);
  }
  if (commission > ceiling) {
    throw new AppException(
      'COMMISSION_OUT_OF_RANGE',
      `A commission of ${commission} exceeds the maximum commission per operation of ${ceiling} (LEDGER_COMMISSION_MAX_PER_OPERATION)`,
    );
  }
}
