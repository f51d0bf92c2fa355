import type { MigrationClass } from '../types';
import { LedgerInit1763800000000 } from './1763800000000-ledger-init';
import { ConsentProofs1764000000000 } from './1764000000000-consent-proofs';
import { BalanceEnforcement1764000100000 } from './1764000100000-balance-enforcement';
import { Corrections1764000200000 } from './1764000200000-corrections';
import { ExecuteIntentFunction1764100000000 } from './1764100000000-execute-intent-function';
import { ConfirmProcedure1764200000000 } from './1764200000000-confirm-procedure';
import { ConfirmChecksInDatabase1764300000000 } from './1764300000000-confirm-checks-in-database';
import { IntegrityAuditOperators1764600000000 } from './1764600000000-integrity-audit-operators';
import { CorrectionReversals1764700000000 } from './1764700000000-correction-reversals';
import { IntegrityAlertAttempts1764900000000 } from './1764900000000-integrity-alert-attempts';
import { ConfirmBatchFunction1765000000000 } from './1765000000000-confirm-batch-function';
import { RuntimeRolePrivileges1765200000000 } from './1765200000000-runtime-role-privileges';
import { BalanceMemoAuthentication1765300000000 } from './1765300000000-balance-memo-authentication';
import { AdjustmentAccounts1765400000000 } from './1765400000000-adjustment-accounts';
import { StaffLedgerOperations1765500000000 } from './1765500000000-staff-ledger-operations';
import { OperatorSearchIndexes1765500100000 } from './1765500100000-operator-search-indexes';
import { LedgerHashChain1765600000000 } from './1765600000000-ledger-hash-chain';
import { FloatReconciliation1765600100000 } from './1765600100000-float-reconciliation';
import { StatementEntryIndex1765600200000 } from './1765600200000-statement-entry-index';
import { TransactionsCompletedBrin1765600300000 } from './1765600300000-transactions-completed-brin';
import { ChainAnchorMovedDigest1765600400000 } from './1765600400000-chain-anchor-moved-digest';
import { ReconciliationAlertIdentity1765600500000 } from './1765600500000-reconciliation-alert-identity';
import { OutboxMonitoringCursor1765600600000 } from './1765600600000-outbox-monitoring-cursor';
import { ReconciliationCorrectionFit1765600800000 } from './1765600800000-reconciliation-correction-fit';
import { PayeeBalanceCap1765601200000 } from './1765601200000-payee-balance-cap';
import { ConfirmCallArgument1765601700000 } from './1765601700000-confirm-call-argument';
import { LedgerChainReviewFixes1765600700000 } from './1765600700000-ledger-chain-review-fixes';
import { OutboxWakeNotify1765601370000 } from './1765601370000-outbox-wake-notify';
import { QrTokenIndexes1765602000000 } from './1765602000000-qr-token-indexes';
import { IntentKeysLowerCase1765602100000 } from './1765602100000-intent-keys-lower-case';

/** Migrations of the `ledger` schema, in order. Append new ones; never edit a shipped one. */
export const ledgerMigrations: MigrationClass[] = [
  LedgerInit1763800000000,
  ConsentProofs1764000000000,
  BalanceEnforcement1764000100000,
  Corrections1764000200000,
  ExecuteIntentFunction1764100000000,
  ConfirmProcedure1764200000000,
  ConfirmChecksInDatabase1764300000000,
  IntegrityAuditOperators1764600000000,
  CorrectionReversals1764700000000,
  IntegrityAlertAttempts1764900000000,
  ConfirmBatchFunction1765000000000,
  RuntimeRolePrivileges1765200000000,
  BalanceMemoAuthentication1765300000000,
  AdjustmentAccounts1765400000000,
  StaffLedgerOperations1765500000000,
  OperatorSearchIndexes1765500100000,
  LedgerHashChain1765600000000,
  FloatReconciliation1765600100000,
  StatementEntryIndex1765600200000,
  TransactionsCompletedBrin1765600300000,
  ChainAnchorMovedDigest1765600400000,
  ReconciliationAlertIdentity1765600500000,
  OutboxMonitoringCursor1765600600000,
  ReconciliationCorrectionFit1765600800000,
  LedgerChainReviewFixes1765600700000,
  PayeeBalanceCap1765601200000,
  OutboxWakeNotify1765601370000,
  ConfirmCallArgument1765601700000,
  QrTokenIndexes1765602000000,
  IntentKeysLowerCase1765602100000,
];
