/** What the ledger answers on its corrections and holds routes (docs/ledger-corrections.md), as this service reads it. */

export interface LedgerCorrectionEvent {
  event: string;
  actorId: string;
  actorRoles: string[];
  reason: string | null;
  metadata: Record<string, unknown>;
  at: string;
}

export interface LedgerCorrection {
  id: string;
  kind: 'ACCOUNT' | 'REVERSAL';
  accountId: string | null;
  direction: 'CREDIT' | 'DEBIT' | null;
  reversalOf: { transactionId: string; referenceId: string } | null;
  amount: number;
  currency: string;
  reason: string;
  status: 'PENDING_APPROVAL' | 'EXECUTED' | 'REJECTED' | 'EXPIRED';
  requiresCompliance: boolean;
  maker: { id: string; roles: string[]; submittedAt: string };
  checker: { id: string; roles: string[]; decidedAt: string; reason: string | null } | null;
  transactionId: string | null;
  referenceId: string | null;
  alertedAt: string | null;
  events?: LedgerCorrectionEvent[];
}

export interface LedgerCorrectionPreview {
  correctionId: string;
  kind: string;
  status: string;
  currency: string;
  requiresCompliance: boolean;
  entries: Array<{ accountId: string; accountType: string; direction: 'DEBIT' | 'CREDIT'; amount: number }>;
  accounts: Array<{
    accountId: string;
    accountType: string;
    balanceBefore: number;
    balanceAfter: number;
    availableBefore: number;
    availableAfter: number;
    sufficient: boolean;
  }>;
  executable: boolean;
}

export interface LedgerHold {
  id: string;
  accountId: string;
  amount: number;
  currency: string;
  reason: string;
  status: 'ACTIVE' | 'RELEASED';
  placed: { by: string; roles: string[]; requestedBy: string | null; at: string };
  released: { by: string; roles: string[]; requestedBy: string | null; reason: string; at: string } | null;
}
