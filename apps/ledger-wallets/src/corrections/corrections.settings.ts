import { Injectable } from '@nestjs/common';
import { LedgerWalletsConfig, consentJwksUrl } from '../ledger-wallets.config';
import type { JwksLocation } from '@mm/platform';

/**
 * The configuration variables of corrections, as `LedgerWalletsConfig` declares them (see
 * docs/ledger-corrections.md). Read through `CorrectionsSettings` only, which applies the defaults
 * below when a variable is not set.
 */
export interface CorrectionsConfigFields {
  /** comma-separated roles allowed to submit a correction and to place holds (default COMPLIANCE,ADMIN) */
  LEDGER_CORRECTION_MAKER_ROLES?: string;
  /** comma-separated roles holding `transactions.approve` (default COMPLIANCE,ADMIN) */
  LEDGER_CORRECTION_APPROVER_ROLES?: string;
  /** roles of a compliance officer (default COMPLIANCE) */
  LEDGER_CORRECTION_COMPLIANCE_ROLES?: string;
  /** above this amount (smallest unit) a correction needs a compliance officer's approval (default 1 000 000) */
  LEDGER_CORRECTION_COMPLIANCE_LIMIT?: number;
  /** compliance channel webhook for executed corrections (default LEDGER_INTEGRITY_ALERT_URL) */
  LEDGER_COMPLIANCE_ALERT_URL?: string;
  /** `aud` of auth's access tokens (auth's JWT_AUDIENCE, default mm-platform) */
  LEDGER_OPERATOR_TOKEN_AUDIENCE?: string;
  /** the documented test-funding flow of the legacy add/subtract; never in production (default: on in NODE_ENV=test only) */
  LEDGER_TEST_FUNDING_ENABLED?: boolean;
}

const roles = (value: string | undefined, fallback: string[]): string[] =>
  value
    ? value
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean)
    : fallback;

@Injectable()
export class CorrectionsSettings {
  readonly makerRoles: string[];
  readonly approverRoles: string[];
  readonly complianceRoles: string[];
  readonly complianceLimit: number;
  /** who may read corrections and holds: makers, approvers, compliance officers, and the read-only AUDITOR role */
  readonly readerRoles: string[];
  readonly alertUrl: string | undefined;
  readonly operatorJwksUrl: JwksLocation;
  readonly operatorIssuer: string;
  readonly operatorAudience: string;
  /** whether the legacy add/subtract still move money directly (test funding; never in production) */
  readonly testFunding: boolean;

  constructor(config: LedgerWalletsConfig) {
    const c = config as LedgerWalletsConfig & CorrectionsConfigFields;
    this.makerRoles = roles(c.LEDGER_CORRECTION_MAKER_ROLES, ['COMPLIANCE', 'ADMIN']);
    this.approverRoles = roles(c.LEDGER_CORRECTION_APPROVER_ROLES, ['COMPLIANCE', 'ADMIN']);
    this.complianceRoles = roles(c.LEDGER_CORRECTION_COMPLIANCE_ROLES, ['COMPLIANCE']);
    this.complianceLimit = c.LEDGER_CORRECTION_COMPLIANCE_LIMIT ?? 1_000_000;
    this.readerRoles = [...new Set([...this.makerRoles, ...this.approverRoles, ...this.complianceRoles, 'AUDITOR'])];
    this.alertUrl = c.LEDGER_COMPLIANCE_ALERT_URL ?? c.LEDGER_INTEGRITY_ALERT_URL;
    // Operator tokens are auth's access tokens: same key set and issuer as the consent proofs.
    this.operatorJwksUrl = consentJwksUrl(config);
    this.operatorIssuer = config.LEDGER_CONSENT_ISSUER;
    this.operatorAudience = c.LEDGER_OPERATOR_TOKEN_AUDIENCE ?? 'mm-platform';
    this.testFunding = config.NODE_ENV !== 'production' && (c.LEDGER_TEST_FUNDING_ENABLED ?? config.NODE_ENV === 'test');
  }
}
