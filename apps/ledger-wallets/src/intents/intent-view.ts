import type { Currency, IntentType, LedgerIntentView } from '@mm/contracts';
import { iso, toMoney } from '../db/money';
import type { IntentStatus } from './intent-state-machine';

export interface IntentRow {
  id: string;
  type: string;
  status: IntentStatus;
  idempotency_key: string;
  source_account_id: string;
  destination_account_id: string;
  amount: string;
  fee: string;
  frozen_amount: string;
  currency: string;
  requires_otp: boolean;
  qr_token: string | null;
  description: string | null;
  initiated_by: string;
  otp_user_id: string | null;
  agent_id: string | null;
  transaction_id: string | null;
  failure_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  reference_id?: string | null;
}

/** What the internal intent routes answer (the contract's view; replays return the stored copy byte for byte). */
export type IntentView = LedgerIntentView;

/** One row of an intent's journal (`GET /internal/intents/:id/events`), oldest first. */
export interface IntentEventView {
  id: string;
  /** null on the creation row */
  fromStatus: IntentStatus | null;
  toStatus: IntentStatus;
  event: string;
  actorId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  metadata: Record<string, unknown>;
  createdAt: Date | string;
}

export function toIntentView(row: IntentRow): IntentView {
  return {
    intentId: row.id,
    type: row.type as IntentType,
    status: row.status,
    requiresOtp: row.requires_otp,
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    amount: toMoney(row.amount),
    fee: toMoney(row.fee),
    frozenAmount: toMoney(row.frozen_amount),
    currency: row.currency as Currency,
    qrToken: row.qr_token,
    description: row.description,
    initiatedBy: row.initiated_by,
    otpUserId: row.otp_user_id ?? null,
    transactionId: row.transaction_id,
    referenceId: row.reference_id ?? null,
    failureReason: row.failure_reason,
    expiresAt: iso(row.expires_at)!,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function insufficientMessage(available: number, required: number): string {
  return `Insufficient available balance: available ${available}, required ${required}`;
}
