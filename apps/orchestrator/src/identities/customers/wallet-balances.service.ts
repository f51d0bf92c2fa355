import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { LedgerWalletsClient } from '../../clients/identity-clients';
import type { WalletBalancesView } from './customer.views';

/** A holder's balances, read from the ledger (the ledger is the only source of balances). */
@Injectable()
export class WalletBalances {
  constructor(private readonly ledger: LedgerWalletsClient) {}

  async of(walletId: string | null, accountTypes?: readonly string[]): Promise<WalletBalancesView> {
    if (!walletId) throw new AppException('WALLET_NOT_FOUND');
    const wallet = await this.ledger.wallet(walletId);
    return {
      walletId: wallet.id,
      balances: wallet.accounts
        .filter((a) => !accountTypes || accountTypes.includes(a.accountType))
        .map((a) => ({
          accountId: a.id,
          currency: a.currency,
          accountType: a.accountType,
          balance: a.balance,
          availableBalance: a.availableBalance,
          frozenBalance: a.frozenBalance,
        })),
    };
  }
}
