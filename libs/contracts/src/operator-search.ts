/*
 * What the ledger answers on its operator-search routes (`GET /v1/internal/operator-search/*`),
 * read by the orchestrator's back office (`GET /api/backoffice/transactions`, and the story of one
 * payment). One definition for both sides. Amounts are integers in the currency's smallest unit;
 * times are ISO 8601 UTC.
 */

/** The ledger's kinds of operation: the three intent types, and ADJUSTMENT (an operator's correction or reversal, no intent). */
export const OPERATION_TYPES = ['TRANSFER', 'CASH_IN', 'CASH_OUT', 'ADJUSTMENT'] as const;
export type OperationSearchType = (typeof OPERATION_TYPES)[number];

/** An intent's status; an ADJUSTMENT, which has no intent, is SUCCEEDED. */
export const OPERATION_STATUSES = [
  'CREATED',
  'OTP_SENT',
  'OTP_VERIFIED',
  'PIN_VERIFIED',
  'SUCCEEDED',
  'FAILED',
  'EXPIRED',
  'CANCELED',
] as const;
export type OperationSearchStatus = (typeof OPERATION_STATUSES)[number];

/** Most accounts one search may name (a person's main and commission accounts in every currency, and one more). */
export const MAX_SEARCH_ACCOUNTS = 10;

/** A transaction's readable reference (`MMPTX2611220A1B2C3`). */
export const TRANSACTION_REFERENCE = /^[A-Z]{3}TX\d{6}[A-Z0-9]{7}$/;

/** What names one operation in a path: its reference, or an intent id. */
export const OPERATION_KEY = /^([A-Z]{3}TX\d{6}[A-Z0-9]{7}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

export interface OperationLink {
  transactionId: string;
  referenceId: string;
}

/**
 * One operation as the ledger knows it: an intent (with the transaction it committed, if it did) or
 * an ADJUSTMENT transaction. `at` is the search's time: the intent's creation, or the adjustment's
 * completion; it orders the list and the date filters apply to it.
 */
export interface LedgerOperation {
  /** the ledger intent; null for an ADJUSTMENT */
  intentId: string | null;
  /** the committed transaction; null while (or when) the intent did not succeed */
  transactionId: string | null;
  referenceId: string | null;
  type: OperationSearchType;
  status: OperationSearchStatus;
  amount: number;
  fee: number;
  currency: string;
  /** the intent's debited and credited accounts; null for an ADJUSTMENT (its entries say which) */
  sourceAccountId: string | null;
  destinationAccountId: string | null;
  sourceHolder: string | null;
  destinationHolder: string | null;
  /** an ADJUSTMENT that reverses a transaction: that transaction */
  reverses: OperationLink | null;
  /** a transaction that was reversed: its reversal */
  reversedBy: OperationLink | null;
  failureReason: string | null;
  at: string;
  completedAt: string | null;
}

export interface LedgerOperationPage {
  items: LedgerOperation[];
  /** opaque; pass back as `cursor` for the next page; null on the last one */
  nextCursor: string | null;
}

/** The filters of `GET /v1/internal/operator-search/operations` (all optional, combined with AND). */
export interface LedgerOperationSearch {
  reference?: string;
  accountIds?: string[];
  type?: OperationSearchType;
  status?: OperationSearchStatus;
  minAmount?: number;
  maxAmount?: number;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

export interface LedgerIntentEvent {
  fromStatus: string | null;
  toStatus: string;
  event: string;
  actorId: string | null;
  at: string;
}

export interface LedgerJournalEntry {
  entryId: string;
  /** the transaction the entry belongs to: the operation's, or its reversal's */
  transactionId: string;
  accountId: string;
  accountType: string;
  holder: string;
  direction: 'DEBIT' | 'CREDIT';
  amount: number;
  currency: string;
  counterpartyEntryId: string;
  createdBy: string;
  createdAt: string;
}

/** Everything the ledger holds about one operation: the operation, its intent's journal, its entries. */
export interface LedgerOperationStory {
  operation: LedgerOperation;
  /** the intent's journal (status changes), oldest first; empty for an ADJUSTMENT */
  events: LedgerIntentEvent[];
  /** the double-entry lines of its transaction, and of its reversal if reversed */
  entries: LedgerJournalEntry[];
  /** who initiated the intent (user id), and the agent of a cash operation */
  initiatedBy: string | null;
  agentId: string | null;
  qrToken: string | null;
  expiresAt: string | null;
  /** an ADJUSTMENT's reason, as the operator wrote it */
  reason: string | null;
}

export const LEDGER_OPERATOR_SEARCH_ROUTES = {
  /** GET ?reference=&accountIds=&type=&status=&minAmount=&maxAmount=&from=&to=&cursor=&limit= → LedgerOperationPage */
  operations: '/v1/internal/operator-search/operations',
  /** GET → LedgerOperationStory; 404 TRANSACTION_NOT_FOUND. `key` is a reference or an intent id */
  story: (key: string) => `/v1/internal/operator-search/operations/${encodeURIComponent(key)}`,
} as const;

/** The keyset of the operations list: the row's time to the microsecond and its id, base64url JSON. */
export function encodeOperationCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MICRO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The cursor's key, or null when the text is not a cursor the ledger issued. */
export function decodeOperationCursor(cursor: string): [string, string] | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      MICRO_INSTANT.test(value[0]) &&
      !Number.isNaN(Date.parse(value[0])) &&
      typeof value[1] === 'string' &&
      UUID.test(value[1])
    ) {
      return [value[0], value[1].toLowerCase()];
    }
  } catch {
    // not a cursor
  }
  return null;
}
