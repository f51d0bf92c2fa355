import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type SettlementStatement, type SettlementStatementQuery, settlementStatement, statementPeriod } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import type { PartnerPrincipal } from '../keys/partner-principal';
import { MerchantStatementClient } from './merchant-statement.client';
import { PaidOrdersService } from './paid-orders.service';

/**
 * A connected merchant's settlement statement for its partner (docs/statements.md): the partner
 * needs a live key and an active connection to the merchant granting `orders.read`, the scope that
 * already lets it read the merchant's orders. Every payment is listed, not only those of the
 * partner's own orders: the statement is the merchant's account, and it must tie to its balance.
 */
@Injectable()
export class PartnerStatementsService {
  constructor(
    private readonly db: DataSource,
    private readonly ledger: MerchantStatementClient,
    private readonly paidOrders: PaidOrdersService,
  ) {}

  async statement(partner: PartnerPrincipal, merchantId: string, query: SettlementStatementQuery): Promise<SettlementStatement> {
    if (!partner.livemode) throw new AppException('SETTLEMENT_LIVE_KEY_REQUIRED');
    const rows = await queryRows<{ scopes: string[] }>(
      this.db,
      `SELECT scopes FROM partners.connections
        WHERE integration_id = $1 AND livemode AND merchant_ref = $2 AND merchant_id IS NOT NULL AND status = 'active'`,
      [partner.integrationId, merchantId],
    );
    if (rows.length === 0) throw new AppException('NO_ACTIVE_CONNECTION');
    if (!rows[0].scopes.includes('orders.read')) throw new AppException('MISSING_SCOPE', 'The connection lacks the scope orders.read');
    const period = statementPeriod(query);
    const ledger = await this.ledger.account(merchantId, query.currency ?? 'XAF', period.start, period.end);
    const orders = await this.paidOrders.byTransaction(ledger.lines.filter((l) => l.viaQr).map((l) => l.transactionId));
    return settlementStatement(merchantId, period, ledger, orders);
  }
}
