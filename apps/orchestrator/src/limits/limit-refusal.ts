import { AppException, type ErrorCode } from '@mm/errors';
import type { Currency } from '../common/operation-type';

export type LimitCode = Extract<
  ErrorCode,
  | 'AMOUNT_BELOW_MINIMUM'
  | 'AMOUNT_ABOVE_MAXIMUM'
  | 'LIMIT_SINGLE_OPERATION_EXCEEDED'
  | 'LIMIT_DAILY_EXCEEDED'
  | 'LIMIT_MONTHLY_EXCEEDED'
  | 'LIMIT_BALANCE_CAP_EXCEEDED'
  | 'AGENT_OPERATION_CEILING_EXCEEDED'
  | 'AGENT_DAILY_CEILING_EXCEEDED'
>;

/**
 * Header carrying the amount allowed now: the minimum for AMOUNT_BELOW_MINIMUM, else the most that
 * would pass. Absent from a refusal that must not disclose it (`undisclosedLimitRefusal`).
 */
export const LIMIT_ALLOWED_HEADER = 'X-Limit-Allowed';
export const LIMIT_CURRENCY_HEADER = 'X-Limit-Currency';

const WHAT: Record<LimitCode, string> = {
  AMOUNT_BELOW_MINIMUM: 'The minimum amount for this operation is',
  AMOUNT_ABOVE_MAXIMUM: 'The maximum amount for this operation is',
  LIMIT_SINGLE_OPERATION_EXCEEDED: 'The single-operation limit of the account is',
  LIMIT_DAILY_EXCEEDED: 'The account may still move today at most',
  LIMIT_MONTHLY_EXCEEDED: 'The account may still move this month at most',
  LIMIT_BALANCE_CAP_EXCEEDED: 'The recipient account may still receive at most',
  AGENT_OPERATION_CEILING_EXCEEDED: 'The agent ceiling per operation is',
  AGENT_DAILY_CEILING_EXCEEDED: 'The agent may still handle today at most',
};

/**
 * A refusal that names its limit (the code) and the amount allowed now, in the message for people
 * and in `X-Limit-Allowed` / `X-Limit-Currency` for programs (the error body layout is fixed).
 */
export function limitRefusal(code: LimitCode, allowed: number, currency: Currency): AppException {
  const amount = Math.max(0, allowed);
  return new AppException(code, `${WHAT[code]} ${amount} ${currency}`, {
    headers: { [LIMIT_ALLOWED_HEADER]: String(amount), [LIMIT_CURRENCY_HEADER]: currency },
  });
}

/** The limits whose room tells something about one customer (what it moved, what it holds). */
export type PersonalLimitCode = Extract<LimitCode, 'LIMIT_DAILY_EXCEEDED' | 'LIMIT_MONTHLY_EXCEEDED' | 'LIMIT_BALANCE_CAP_EXCEEDED'>;

const UNDISCLOSED: Record<PersonalLimitCode, string> = {
  LIMIT_DAILY_EXCEEDED: "The amount exceeds what the customer's account may still move today",
  LIMIT_MONTHLY_EXCEEDED: "The amount exceeds what the customer's account may still move this month",
  LIMIT_BALANCE_CAP_EXCEEDED: 'The recipient account cannot receive this amount',
};

/**
 * The same refusal without the amount allowed (no headers, no figure in the message): for a limit
 * whose room would reveal someone else's balance or use: the balance cap of a customer credited by
 * another user, the daily and monthly room of a customer whose cash-out an agent started.
 */
export function undisclosedLimitRefusal(code: PersonalLimitCode): AppException {
  return new AppException(code, UNDISCLOSED[code]);
}
