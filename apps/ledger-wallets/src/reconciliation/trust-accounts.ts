import { Injectable } from '@nestjs/common';
import { LedgerWalletsConfig } from '../ledger-wallets.config';

/** The trust bank accounts of LEDGER_TRUST_ACCOUNTS (account → currency) and the matching tolerance. */
@Injectable()
export class ReconciliationSettings {
  readonly trustAccounts: ReadonlyMap<string, string>;
  readonly toleranceDays: number;
  /**
   * The present, for the "is the closing day over" checks. A field rather than `new Date()` inline
   * so an in-process test can move the reconciliation's idea of today without faking every clock
   * of the process (the database and the payments keep the real time).
   */
  now: () => Date = () => new Date();

  constructor(config: LedgerWalletsConfig) {
    this.trustAccounts = parseTrustAccounts(config.LEDGER_TRUST_ACCOUNTS);
    this.toleranceDays = config.RECON_DATE_TOLERANCE_DAYS;
  }
}

/** `XAF:CM21…,XOF:SN08…` → account → currency (the config's pattern has already been checked). */
export function parseTrustAccounts(value: string): Map<string, string> {
  const accounts = new Map<string, string>();
  for (const pair of value.split(',').filter(Boolean)) {
    const [currency, account] = pair.split(':');
    accounts.set(account, currency);
  }
  return accounts;
}
