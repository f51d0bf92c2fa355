import { Injectable } from '@nestjs/common';
import { PLATFORM_UTC_OFFSET } from '@mm/contracts';
import { LedgerWalletsConfig } from '../ledger-wallets.config';

/** The trust bank accounts of LEDGER_TRUST_ACCOUNTS (account → currency, account → bank day offset) and the matching tolerance. */
@Injectable()
export class ReconciliationSettings {
  readonly trustAccounts: ReadonlyMap<string, string>;
  /** the UTC offset of the days each trust account's bank books in: West Africa Time unless configured */
  readonly utcOffsets: ReadonlyMap<string, string>;
  readonly toleranceDays: number;
  /**
   * The present, for the "is the closing day over" checks. A field rather than `new Date()` inline
   * so an in-process test can move the reconciliation's idea of today without faking every clock
   * of the process (the database and the payments keep the real time).
   */
  now: () => Date = () => new Date();

  constructor(config: LedgerWalletsConfig) {
    this.trustAccounts = parseTrustAccounts(config.LEDGER_TRUST_ACCOUNTS);
    this.utcOffsets = parseTrustAccountOffsets(config.LEDGER_TRUST_ACCOUNTS);
    this.toleranceDays = config.RECON_DATE_TOLERANCE_DAYS;
  }
}

/** `XAF:CM21…,XOF:SN08…@+00:00` → account → currency (the config's pattern has already been checked). */
export function parseTrustAccounts(value: string): Map<string, string> {
  return new Map(entries(value).map(({ currency, account }) => [account, currency]));
}

/** `XAF:CM21…,XOF:SN08…@+00:00` → account → UTC offset of its bank's days (+01:00 when none is written). */
export function parseTrustAccountOffsets(value: string): Map<string, string> {
  return new Map(entries(value).map(({ account, utcOffset }) => [account, utcOffset]));
}

function entries(value: string): { currency: string; account: string; utcOffset: string }[] {
  return value
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const [currency, rest] = [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)];
      const [account, utcOffset = PLATFORM_UTC_OFFSET] = rest.split('@');
      return { currency, account, utcOffset };
    });
}
