import type { AuthUser } from '../access/permissions';
import type { PaymentIntentRecord } from '../intents/payment-intent.types';
import { maskPhone } from '../intents/phone-prefixes';
import type { TransactionView } from './dto/transaction.views';
import type { LedgerAdjustment } from './ledger-statements.client';

export const STAFF_ROLES = new Set(['SUPPORT', 'COMPLIANCE', 'ADMIN', 'AUDITOR']);

/**
 * What a payment did to the caller's own accounts: the payer paid amount + fee, the payee got the
 * amount, the agent its commission (on its commission account; in a cash-in the agent is also the
 * payer). null when the caller is none of them (staff, a master agent reading its agents').
 */
function ownChange(r: PaymentIntentRecord, user: AuthUser): number | null {
  let change = 0;
  let party = false;
  if (r.payer.userId === user.userId) {
    change -= r.amount + (r.chargedFee ?? 0);
    party = true;
  }
  if (r.payee.userId === user.userId) {
    change += r.amount;
    party = true;
  }
  if (r.agent && r.agent.userId === user.userId) {
    change += r.chargedCommission ?? 0;
    party = true;
  }
  return party ? change : null;
}

/** A completed payment; `reversedBy` is the reference of its reversal, when an operator undid it. */
export function paymentLine(r: PaymentIntentRecord, user: AuthUser, reversedBy: string | null): TransactionView {
  const direction = r.payer.userId === user.userId ? 'DEBIT' : r.payee.userId === user.userId ? 'CREDIT' : null;
  const seesCommission =
    STAFF_ROLES.has(user.role) || (r.agent !== null && (r.agent.userId === user.userId || r.agent.masterAgentUserId === user.userId));
  const fee = r.chargedFee ?? 0;
  return {
    kind: 'PAYMENT',
    referenceId: r.referenceId!,
    transactionId: r.transactionId!,
    intentId: r.ledgerIntentId!,
    type: r.type,
    operationType: r.operationType,
    direction,
    amount: r.amount,
    fee,
    total: r.amount + fee,
    commission: seesCommission && r.agent ? (r.chargedCommission ?? 0) : null,
    currency: r.currency,
    description: r.description,
    payer: { displayName: r.payer.displayName, phone: maskPhone(r.payer.phone) },
    payee: { displayName: r.payee.displayName, phone: maskPhone(r.payee.phone) },
    agent: r.agent ? { displayName: r.agent.displayName, phone: maskPhone(r.agent.phone), agentCode: r.agent.agentCode } : null,
    balanceChange: ownChange(r, user),
    reverses: null,
    reversedBy,
    completedAt: r.completedAt!,
  };
}

/**
 * An adjustment of the caller's accounts. The reversal of a payment reads like that payment (its
 * parties, amount and fee) in the other direction, linked to it by `reverses`; anything else is a
 * CORRECTION with no parties. `balanceChange` is the ledger's own figure for the caller's accounts.
 */
export function adjustmentLine(a: LedgerAdjustment, original: PaymentIntentRecord | undefined, user: AuthUser): TransactionView {
  if (a.kind === 'REVERSAL' && original) {
    const base = paymentLine(original, user, null);
    return {
      ...base,
      kind: 'REVERSAL',
      referenceId: a.referenceId,
      transactionId: a.transactionId,
      direction: base.direction === 'DEBIT' ? 'CREDIT' : base.direction === 'CREDIT' ? 'DEBIT' : null,
      balanceChange: a.change,
      reverses: original.referenceId,
      completedAt: a.completedAt,
    };
  }
  const size = Math.abs(a.change);
  return {
    kind: a.kind === 'REVERSAL' ? 'REVERSAL' : 'CORRECTION',
    referenceId: a.referenceId,
    transactionId: a.transactionId,
    intentId: null,
    type: 'ADJUSTMENT',
    operationType: 'ADJUSTMENT',
    direction: a.change < 0 ? 'DEBIT' : 'CREDIT',
    amount: size,
    fee: 0,
    total: size,
    commission: null,
    currency: a.currency as TransactionView['currency'],
    description: a.reason,
    payer: null,
    payee: null,
    agent: null,
    balanceChange: a.change,
    reverses: a.reversalOf?.referenceId ?? null,
    reversedBy: null,
    completedAt: a.completedAt,
  };
}
