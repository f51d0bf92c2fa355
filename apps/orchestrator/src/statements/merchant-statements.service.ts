import { Injectable } from '@nestjs/common';
import {
  type Currency,
  type LedgerAccountStatement,
  type SettlementStatement,
  type SettlementStatementQuery,
  settlementStatement,
  statementPeriod,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { type Merchant, MerchantsService } from '../identities/merchants/merchants.service';
import { StatementSourcesClient } from './statement-sources.client';

/**
 * A merchant's settlement statement (docs/statements.md): the ledger's statement of the merchant's
 * main account in the currency, with the partner order each QR payment paid. Served to the merchant
 * itself and to staff here, and to partners, which ask the ledger's part through `ledgerPart` and
 * add their own orders.
 */
@Injectable()
export class MerchantStatementsService {
  constructor(
    private readonly merchants: MerchantsService,
    private readonly sources: StatementSourcesClient,
  ) {}

  async forUser(userId: string, query: SettlementStatementQuery): Promise<SettlementStatement> {
    return this.build(await this.merchants.getByUserId(userId), query);
  }

  async forMerchant(merchantId: string, query: SettlementStatementQuery): Promise<SettlementStatement> {
    return this.build(await this.known(merchantId), query);
  }

  /** The ledger's statement of the merchant's account over [from, to), as partners asks for it. */
  async ledgerPart(merchantId: string, currency: Currency, from: string, to: string): Promise<LedgerAccountStatement> {
    return this.sources.account(this.accountOf(await this.known(merchantId), currency), from, to);
  }

  private async build(merchant: Merchant, query: SettlementStatementQuery): Promise<SettlementStatement> {
    const period = statementPeriod(query);
    const accountId = this.accountOf(merchant, query.currency ?? 'XAF');
    const ledger = await this.sources.account(accountId, period.start, period.end);
    const { orders, complete } = await this.sources.paidOrders(ledger.lines.filter((l) => l.viaQr).map((l) => l.transactionId));
    return settlementStatement(merchant.id, period, ledger, orders, complete);
  }

  private async known(merchantId: string): Promise<Merchant> {
    const merchant = await this.merchants.findById(merchantId.toLowerCase());
    if (!merchant?.customer.walletId) throw new AppException('MERCHANT_NOT_FOUND');
    return merchant;
  }

  private accountOf(merchant: Merchant, currency: Currency): string {
    const account = merchant.customer.accounts[currency];
    if (!account) throw new AppException('SETTLEMENT_CURRENCY_UNAVAILABLE', `The merchant has no ${currency} account`);
    return account;
  }
}
