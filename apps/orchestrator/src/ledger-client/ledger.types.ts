import type { Currency } from '@mm/contracts';

/**
 * The ledger's internal intent API as the orchestrator uses it (`/v1/internal/*`, service key).
 * Apps never import each other's code: these types mirror the ledger's DTOs and views.
 */
export const LEDGER_INTENT_TYPES = ['TRANSFER', 'CASH_IN', 'CASH_OUT'] as const;
export type LedgerIntentType = (typeof LEDGER_INTENT_TYPES)[number];

export const LEDGER_INTENT_STATUSES = [
  'CREATED',
  'OTP_SENT',
  'OTP_VERIFIED',
  'PIN_VERIFIED',
  'SUCCEEDED',
  'FAILED',
  'EXPIRED',
  'CANCELED',
] as const;
export type LedgerIntentStatus = (typeof LEDGER_INTENT_STATUSES)[number];
export const TERMINAL_STATUSES: readonly LedgerIntentStatus[] = ['SUCCEEDED', 'FAILED', 'EXPIRED', 'CANCELED'];

/** Who moves an intent: the end user as the orchestrator saw them. */
export interface LedgerActor {
  id: string;
  ip?: string;
  userAgent?: string;
}

/** `POST /v1/internal/intents` */
export interface LedgerCreateIntent {
  idempotencyKey: string;
  type: LedgerIntentType;
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
  currency: Currency;
  fee: number;
  requiresOtp: boolean;
  /** auth user id of the customer the OTP goes to (only when requiresOtp) */
  otpUserId?: string;
  qrToken?: string;
  description?: string;
  agentId?: string;
  actor: LedgerActor;
  metadata?: Record<string, unknown>;
  /** an earlier end than the ledger's own intent lifetime (a partner order's payBy) */
  expiresAt?: string;
  /**
   * the latest time the ledger may still create this intent (a withdrawal-code cash-out: the code's
   * expiry). Later, a first creation is 400 INTENT_CREATE_DEADLINE_PASSED with nothing held, while a
   * creation that already happened replays its stored 201. Absent from requests stored before it existed.
   */
  createBy?: string;
}

export interface LedgerExecutionContext {
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
  currency: Currency;
  fee?: { amount: number; accountId?: string };
  commission?: { amount: number; accountId: string; fromAccountId?: string };
  createdBy?: string;
  metadata?: { typeCode?: string; agentId?: string; description?: string; extra?: Record<string, unknown> };
}

/** `POST /v1/internal/intents/:id/transition` */
export interface LedgerTransition {
  toStatus: LedgerIntentStatus;
  actor: LedgerActor;
  executionContext?: LedgerExecutionContext;
  /** PIN_VERIFIED / OTP_VERIFIED: the single-use proof auth issued (libs/contracts consent.ts) */
  consentProof?: string;
  reason?: string;
  metadata?: Record<string, unknown>;
}

export interface LedgerIntentView {
  intentId: string;
  type: LedgerIntentType;
  status: LedgerIntentStatus;
  requiresOtp: boolean;
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
  fee: number;
  frozenAmount: number;
  currency: Currency;
  qrToken: string | null;
  description: string | null;
  transactionId: string | null;
  referenceId: string | null;
  failureReason: string | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}

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
