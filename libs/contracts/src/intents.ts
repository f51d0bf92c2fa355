import type { Currency } from './services';

/**
 * The ledger's internal intent API (`/v1/internal/intents`, service key): what the orchestrator
 * sends and what the ledger answers. The ledger validates requests with its DTO classes, which
 * implement these interfaces, and builds its answers as these views; the orchestrator calls with
 * them. One shape on both sides: a field added here is seen by both compilers.
 */
export const INTENT_TYPES = ['TRANSFER', 'CASH_IN', 'CASH_OUT'] as const;
export type IntentType = (typeof INTENT_TYPES)[number];

/** An intent's life: the OTP branch (cash-out without a fresh withdrawal code) or straight to the PIN, then one end. */
export const INTENT_STATUSES = [
  'CREATED',
  'OTP_SENT',
  'OTP_VERIFIED',
  'PIN_VERIFIED',
  'SUCCEEDED',
  'FAILED',
  'EXPIRED',
  'CANCELED',
] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

export const ACTIVE_STATUSES: readonly IntentStatus[] = ['CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED'];
export const TERMINAL_STATUSES: readonly IntentStatus[] = ['SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED'];
/** Ends without a transaction: the frozen amount goes back to available. */
export const RELEASING_STATUSES: readonly IntentStatus[] = ['FAILED', 'EXPIRED', 'CANCELED'];

/** Who moves an intent: the end user as the orchestrator saw them. */
export interface IntentActor {
  id: string;
  ip?: string;
  userAgent?: string;
}

/** Who pays whom, how much, in which currency (amounts in minor units). */
export interface TransferTerms {
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
  currency: Currency;
}

/** `POST /v1/internal/intents` */
export interface CreateIntentRequest extends TransferTerms {
  /** UUID v4, unique per intent: a retry with the same key and body answers the intent already made */
  idempotencyKey: string;
  type: IntentType;
  /** frozen on the source together with the amount */
  fee: number;
  requiresOtp: boolean;
  /** auth user id of the customer the OTP goes to (only when requiresOtp) */
  otpUserId?: string;
  qrToken?: string;
  description?: string;
  agentId?: string;
  actor: IntentActor;
  metadata?: Record<string, unknown>;
  /** an earlier end than the ledger's own intent lifetime (a partner order's payBy) */
  expiresAt?: string;
  /**
   * the latest time the ledger may still create this intent (a withdrawal-code cash-out: the code's
   * expiry). Later, a first creation is 400 INTENT_CREATE_DEADLINE_PASSED with nothing held, while a
   * creation that already happened replays its stored 201. Absent from requests stored before it existed.
   */
  createBy?: string;
  /**
   * the most the destination's balance may reach (minor units): 422 LIMIT_BALANCE_CAP_EXCEEDED, nothing
   * held, when its balance + amount is already above it. An early answer only: the confirm's cap binds.
   */
  payeeBalanceCap?: number;
}

/** What the move to SUCCEEDED books: the ledger checks the terms against the frozen intent. */
export interface IntentExecutionContext extends TransferTerms {
  /** to FEE_COLLECTION of the currency unless `accountId` names another fee account */
  fee?: { amount: number; accountId?: string };
  /** from TREASURY of the currency unless `fromAccountId` says otherwise, to the agent's commission account */
  commission?: { amount: number; accountId: string; fromAccountId?: string };
  createdBy?: string;
  metadata?: { typeCode?: string; agentId?: string; description?: string; extra?: Record<string, unknown> };
  /**
   * the most the destination's balance may reach with this credit (minor units), checked on the
   * destination row the confirm holds locked: 422 LIMIT_BALANCE_CAP_EXCEEDED, nothing moved, the
   * intent still PIN_VERIFIED (it may be confirmed again once the balance fell)
   */
  payeeBalanceCap?: number;
}

/** `POST /v1/internal/intents/:id/transition` */
export interface TransitionRequest {
  toStatus: IntentStatus;
  actor: IntentActor;
  /** required for SUCCEEDED */
  executionContext?: IntentExecutionContext;
  /** OTP_VERIFIED / PIN_VERIFIED: the single-use proof auth issued (see consent.ts) */
  consentProof?: string;
  reason?: string;
  metadata?: Record<string, unknown>;
}

/** What the internal intent routes answer. */
export interface LedgerIntentView {
  intentId: string;
  type: IntentType;
  status: IntentStatus;
  requiresOtp: boolean;
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
  fee: number;
  frozenAmount: number;
  currency: Currency;
  qrToken: string | null;
  description: string | null;
  /** who created the intent (whose PIN it needs) */
  initiatedBy: string;
  /** OTP branch only: the user the OTP goes to (whose OTP it needs) */
  otpUserId: string | null;
  transactionId: string | null;
  referenceId: string | null;
  failureReason: string | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}

/** One ledger account as the ledger's account and wallet routes answer it. */
export interface LedgerAccountView {
  id: string;
  walletId: string;
  accountType: string;
  currency: Currency;
  holder: string;
  balance: number;
  availableBalance: number;
  frozenBalance: number;
  createdAt: string;
  updatedAt: string;
}

export interface LedgerWalletView {
  id: string;
  ownerType: string;
  ownerId: string;
  holderName: string | null;
  status: string;
  createdAt: string;
  accounts: LedgerAccountView[];
}
