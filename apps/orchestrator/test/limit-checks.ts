import { randomUUID } from 'node:crypto';
import type { LimitCheck } from '../src/limits/limits.types';

/** A TIER_1 customer's own XAF transfer as the limits see it (a fresh operation id each time). */
export function transferCheck(payerId: string, amount: number, extra: Partial<LimitCheck> = {}): LimitCheck {
  return {
    operationId: randomUUID(),
    type: 'TRANSFER',
    amount,
    currency: 'XAF',
    payer: { userId: payerId, kycTier: 'TIER_1' },
    // the payer's own transfer: refusals state the room left
    initiatorUserId: payerId,
    ...extra,
  };
}
