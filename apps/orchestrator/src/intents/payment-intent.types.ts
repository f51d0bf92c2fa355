import type { CreateIntentRequest, Currency, CustomerRole, IntentStatus, IntentType, TransitionRequest } from '@mm/contracts';
import type { OperationType } from '../pricing/operation-type';
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

/** `PENDING` until the ledger answered the creation; the ledger's statuses after that. */
export type RecordStatus = 'PENDING' | IntentStatus;

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
  status: RecordStatus;
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
  | 'status'
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
