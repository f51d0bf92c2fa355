import type { Currency, OperationType } from '../common/operation-type';

export type PartyKind = 'CUSTOMER' | 'MERCHANT' | 'AGENT';

/** A party as its owning module knows it (customer module, merchant directory, agents). */
export interface RiskParty {
  id: string;
  kind: PartyKind;
  /** E.164; checked against the blocklist */
  phone?: string;
  /** `active` (any case) may transact; any other status (frozen, closed, suspended, …) may not */
  status: string;
  /** KYC tier code of a customer (the amount-against-tier rule) */
  kycTier?: string;
}

export type RiskStage = 'CREATE' | 'CONFIRM';

export interface RiskInput {
  stage: RiskStage;
  /** the intent's idempotencyKey: the first decision of an operation at a stage stands for the same judged input */
  operationId: string;
  /** the ledger's intent id, once known (confirm) */
  intentId?: string;
  type: OperationType;
  amount: number;
  currency: Currency;
  /** who started the operation (sender of a transfer, agent of a cash operation) */
  initiator: RiskParty;
  /** whose account is debited */
  payer: RiskParty;
  /** whose account is credited */
  payee: RiskParty;
  /** the client's device identifier, when the app sends one */
  deviceId?: string;
}

/**
 * Public reason codes of a refusal: coarse on purpose. A blocklist hit answers NOT_ALLOWED like
 * any other policy refusal, so a listed person is not told that a list named them.
 */
export const RISK_REASONS = ['NOT_ALLOWED', 'ACCOUNT_FROZEN', 'COUNTERPARTY_UNAVAILABLE', 'VELOCITY', 'UNUSUAL_AMOUNT'] as const;
export type RiskReason = (typeof RISK_REASONS)[number];

export type SignalOutcome = 'PASS' | 'FLAG' | 'REJECT' | 'SKIPPED' | 'UNAVAILABLE';

/** One rule's verdict with its evidence (stored, never returned to the client). */
export interface RiskSignal {
  rule: string;
  outcome: SignalOutcome;
  detail?: Record<string, unknown>;
}

export interface RiskDecision {
  decisionId: string;
  operationId: string;
  stage: RiskStage;
  outcome: 'ACCEPT' | 'REJECT';
  reasonCode: RiskReason | null;
  /** the `risk` configuration version whose thresholds were applied */
  rulesVersion: number;
  signals: RiskSignal[];
  createdAt: string;
}
