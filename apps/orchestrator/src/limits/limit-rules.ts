import type { AppException } from '@mm/errors';
import type { Currency } from '../common/operation-type';
import type { LimitsDocument, TierLimits } from './limits-document';
import { type PersonalLimitCode, limitRefusal, undisclosedLimitRefusal } from './limit-refusal';
import type { LimitCheck } from './limits.types';

/** What a subject has already used in the current day and month (settled, plus live holds of other operations). */
export interface Usage {
  day: number;
  month: number;
}

/** The tier's limits; an unknown tier code gets the least verified tier of the currency (the safe side). */
export function tierLimits(doc: LimitsDocument, currency: Currency, tier: string): { limits: TierLimits; known: boolean } {
  const ofCurrency = doc.tiers.filter((t) => t.currency === currency);
  const found = ofCurrency.find((t) => t.tier === tier);
  return { limits: found ?? ofCurrency[0], known: Boolean(found) };
}

/**
 * The first limit the operation breaks, in a fixed order (bounds of the type, per-operation
 * ceilings, then daily and monthly), or undefined; the recipient's balance cap is the ledger's
 * check. An amount equal to what remains passes; one franc more does not. The daily and monthly
 * refusals state the room left only to the customer it belongs to (`check.initiatorUserId`).
 */
export function firstRefusal(doc: LimitsDocument, check: LimitCheck, usage: { payer?: Usage; agent?: Usage }): AppException | undefined {
  const { amount, currency } = check;
  // The room left under a daily or monthly limit tells what one customer moved: stated only when
  // that customer asked (not an agent's cash-out by phone). The tier's own figures are public.
  const personal = (code: PersonalLimitCode, room: number, customerUserId: string) =>
    check.initiatorUserId === customerUserId ? limitRefusal(code, room, currency) : undisclosedLimitRefusal(code);
  const bounds = doc.amounts.find((b) => b.type === check.type && b.currency === currency);
  if (bounds && amount < bounds.min) return limitRefusal('AMOUNT_BELOW_MINIMUM', bounds.min, currency);
  if (bounds && amount > bounds.max) return limitRefusal('AMOUNT_ABOVE_MAXIMUM', bounds.max, currency);

  const ceilings = doc.agents.find((a) => a.currency === currency);
  if (check.agent && ceilings && amount > ceilings.perOperationMax) {
    return limitRefusal('AGENT_OPERATION_CEILING_EXCEEDED', ceilings.perOperationMax, currency);
  }

  const room = usageRoom(doc, check);
  if (check.payer && room.payer) {
    const { limits } = tierLimits(doc, currency, check.payer.kycTier);
    const used = usage.payer ?? { day: 0, month: 0 };
    const { userId } = check.payer;
    if (amount > limits.singleMax) return limitRefusal('LIMIT_SINGLE_OPERATION_EXCEEDED', limits.singleMax, currency);
    if (used.day > room.payer.day) return personal('LIMIT_DAILY_EXCEEDED', limits.dailyMax - used.day, userId);
    if (used.month > room.payer.month!) return personal('LIMIT_MONTHLY_EXCEEDED', limits.monthlyMax - used.month, userId);
  }

  if (ceilings && room.agent) {
    const used = usage.agent ?? { day: 0, month: 0 };
    if (used.day > room.agent.day) return limitRefusal('AGENT_DAILY_CEILING_EXCEEDED', ceilings.dailyMax - used.day, currency);
  }

  return undefined;
}

/** The most a subject may have used already in the day and the month (null: no monthly bound). */
export interface UsageBound {
  day: number;
  month: number | null;
}

/**
 * The daily and monthly limits as usage bounds: the operation passes them when each subject has
 * used at most this much (an amount equal to what remains passes). The one statement of those
 * rules: `firstRefusal` judges usage it read against it, and the confirm's hold is written only when
 * the database finds each subject's usage within it (LimitsService.planHold).
 */
export function usageRoom(doc: LimitsDocument, check: LimitCheck): { payer?: UsageBound; agent?: UsageBound } {
  const { amount, currency } = check;
  const room: { payer?: UsageBound; agent?: UsageBound } = {};
  if (check.payer) {
    const { limits } = tierLimits(doc, currency, check.payer.kycTier);
    room.payer = { day: limits.dailyMax - amount, month: limits.monthlyMax - amount };
  }
  const ceilings = doc.agents.find((a) => a.currency === currency);
  if (check.agent && ceilings) room.agent = { day: ceilings.dailyMax - amount, month: null };
  return room;
}

/**
 * The most the credited customer's account may hold after the operation (its tier's balance cap),
 * sent to the ledger, which checks it where the balance and the executing credits are; undefined
 * when no customer is credited (a merchant or an agent has no cap).
 */
export function balanceCap(doc: LimitsDocument, check: LimitCheck): number | undefined {
  return check.payee ? tierLimits(doc, check.currency, check.payee.kycTier).limits.balanceMax : undefined;
}
