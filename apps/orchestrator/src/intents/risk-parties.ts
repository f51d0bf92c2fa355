import type { Currency } from '@mm/contracts';
import type { LimitCheck } from '../limits/limits.types';
import type { RiskInput, RiskParty } from '../risk/risk.types';
import type { PaymentParty } from '../payment-parties/payment-parties.port';
import type { PaymentIntentRecord } from './payment-intent.types';

/** A party as the risk rules see it (statuses are read fresh at create and again at confirm). */
export function riskParty(party: Pick<PaymentParty, 'userId' | 'role' | 'phone' | 'status' | 'kycTier'>): RiskParty {
  const kind = party.role === 'MERCHANT' ? 'MERCHANT' : party.role === 'CUSTOMER' ? 'CUSTOMER' : 'AGENT';
  return { id: party.userId, kind, phone: party.phone, status: party.status, kycTier: kind === 'CUSTOMER' ? party.kycTier : undefined };
}

export interface LimitParties {
  payer: Pick<PaymentParty, 'userId' | 'role' | 'kycTier'>;
  payee: Pick<PaymentParty, 'userId' | 'role' | 'kycTier'>;
  agentId: string | null;
}

/**
 * One operation as the limits see it: the paying customer's tier limits, the credited customer's
 * tier (its balance cap, which the ledger checks), the agent's ceilings. Merchants and agents have no tier.
 * The initiator decides which refusals may state the room left (see LimitCheck.initiatorUserId).
 */
export function limitCheck(
  intent: Pick<PaymentIntentRecord, 'idempotencyKey' | 'operationType' | 'amount' | 'currency' | 'initiatorUserId'> &
    Partial<Pick<PaymentIntentRecord, 'expiresAt'>>,
  parties: LimitParties,
): LimitCheck {
  const check: LimitCheck = {
    operationId: intent.idempotencyKey,
    type: intent.operationType,
    amount: intent.amount,
    currency: intent.currency as Currency,
    initiatorUserId: intent.initiatorUserId,
  };
  // A record's ledger intent, once created: holds taken at confirm last until it can no longer execute.
  if (intent.expiresAt) check.executableUntil = intent.expiresAt;
  if (parties.payer.role === 'CUSTOMER') check.payer = { userId: parties.payer.userId, kycTier: parties.payer.kycTier };
  if (parties.payee.role === 'CUSTOMER') {
    check.payee = { userId: parties.payee.userId, kycTier: parties.payee.kycTier };
  }
  if (parties.agentId) check.agent = { agentId: parties.agentId };
  return check;
}

export type RiskStageInput = Omit<RiskInput, 'stage' | 'intentId'>;
