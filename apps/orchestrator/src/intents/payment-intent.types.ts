import type { CreateIntentRequest, Currency, CustomerRole, IntentType, TransitionRequest } from '@mm/contracts';
import type { OperationType } from '../common/operation-type';
import type { ConfirmedIntentView, CreatedIntentView } from './dto/intent-views.dto';

/** A party as it was when the intent was created: receipts show who it was then. */
export interface PartySnapshot {
  userId: string;
  customerId: string;
  role: CustomerRole;
  phone: string;
  displayName: string;
  kycTier: string;
  /** the account of this party that the payment debits or credits */
  accountId: string;
  merchantId?: string;
}

export interface AgentSnapshot extends PartySnapshot {
  agentId: string;
  agentCode: string;
  masterAgentUserId: string | null;
  commissionAccountId: string;
}

/**
 * How far the orchestrator's own work on an operation got; never the intent's status, which only
 * the ledger holds (read it from the ledger's answers):
 * PENDING (stored, the ledger not yet heard to create the intent), CREATED (the ledger's intent is
 * known), SETTLED (its success is recorded here: history, SMS, limit usage), CLOSED (nothing more
 * to do here: closed before the ledger created anything, or ended by the ledger after a confirm and
 * the limit hold given back).
 */
export type RecordStage = 'PENDING' | 'CREATED' | 'SETTLED' | 'CLOSED';

/** The orchestrator's record of one public intent (orchestrator.payment_intents). */
export interface PaymentIntentRecord {
  id: string;
  ledgerIntentId: string | null;
  idempotencyKey: string;
  requestHash: string;
  initiatorUserId: string;
  initiatorRole: string;
  type: IntentType;
  operationType: OperationType;
  amount: number;
  currency: Currency;
  quoteId: string;
  quotedFee: number;
  quotedCommission: number;
  gridVersion: number;
  limitsVersion: number;
  riskCreateDecisionId: string;
  riskConfirmDecisionId: string | null;
  payer: PartySnapshot;
  payee: PartySnapshot;
  agent: AgentSnapshot | null;
  sourceAccountId: string;
  destinationAccountId: string;
  requiresOtp: boolean;
  qrToken: string | null;
  withdrawalQrId: string | null;
  description: string | null;
  stage: RecordStage;
  pinAttempts: number;
  otpAttempts: number;
  ledgerRequest: CreateIntentRequest;
  createResponse: CreatedIntentView | null;
  confirmRequest: TransitionRequest | null;
  chargedFee: number | null;
  chargedCommission: number | null;
  chargeRule: string | null;
  transactionId: string | null;
  referenceId: string | null;
  confirmResponse: ConfirmedIntentView | null;
  failureReason: string | null;
  correlationId: string | null;
  expiresAt: string | null;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewPaymentIntent = Omit<
  PaymentIntentRecord,
  | 'ledgerIntentId'
  | 'stage'
  | 'pinAttempts'
  | 'otpAttempts'
  | 'createResponse'
  | 'confirmRequest'
  | 'riskConfirmDecisionId'
  | 'chargedFee'
  | 'chargedCommission'
  | 'chargeRule'
  | 'transactionId'
  | 'referenceId'
  | 'confirmResponse'
  | 'failureReason'
  | 'expiresAt'
  | 'completedAt'
  | 'createdAt'
  | 'updatedAt'
>;
