import type { MigrationClass } from '../types';
import { Identities1764000000000 } from './1764000000000-identities';
import { PricingRisk1764000100000 } from './1764000100000-pricing-risk';
import { Payments1764000200000 } from './1764000200000-payments';
import { IncomingHolds1764500000000 } from './1764500000000-incoming-holds';
import { ConsentReplayGuards1764600000000 } from './1764600000000-consent-replay-guards';
import { RuntimeRolePrivileges1765200000000 } from './1765200000000-runtime-role-privileges';
import { ApprovalRequests1765500000000 } from './1765500000000-approval-requests';
import { StaffAuditTrail1765500100000 } from './1765500100000-staff-audit-trail';
import { AuditorStaff1765500200000 } from './1765500200000-auditor-staff';
import { TransactionMonitoring1765600000000 } from './1765600000000-transaction-monitoring';
import { RegulatoryReports1765600100000 } from './1765600100000-regulatory-reports';
import { MonitoringFeedFixes1765600300000 } from './1765600300000-monitoring-feed-fixes';
import { LedgerChainWitness1765600400000 } from './1765600400000-ledger-chain-witness';
import { MonitoredOperationsTransactionIndex1765600500000 } from './1765600500000-monitored-operations-transaction-index';
import { RegulatoryFilingDeadline1765600900000 } from './1765600900000-regulatory-filing-deadline';
import { PaymentRecordStage1765601500000 } from './1765601500000-payment-record-stage';

/** Migrations of the `orchestrator` schema, in order. Append new ones; never edit a shipped one. */
export const orchestratorMigrations: MigrationClass[] = [
  Identities1764000000000,
  PricingRisk1764000100000,
  Payments1764000200000,
  IncomingHolds1764500000000,
  ConsentReplayGuards1764600000000,
  RuntimeRolePrivileges1765200000000,
  ApprovalRequests1765500000000,
  StaffAuditTrail1765500100000,
  AuditorStaff1765500200000,
  TransactionMonitoring1765600000000,
  RegulatoryReports1765600100000,
  MonitoringFeedFixes1765600300000,
  LedgerChainWitness1765600400000,
  MonitoredOperationsTransactionIndex1765600500000,
  RegulatoryFilingDeadline1765600900000,
  PaymentRecordStage1765601500000,
];
