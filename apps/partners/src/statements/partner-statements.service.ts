import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type SettlementStatement, type SettlementStatementQuery, settlementStatement, statementPeriod } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import type { PartnerPrincipal } from '../keys/partner-principal';
import { MerchantStatementClient } from './merchant-statement.client';
import { PaidOrdersService } from './paid-orders.service';

/**
 * A connected merchant's settlement statement for its partner (docs/statements.md "As a connected
 * partner"): a live key and an active connection to the merchant granting `orders.read`, the scope
 * that already lets it read the merchant's orders.
 *
 * What the partner sees of the merchant is bounded by that connection:
 * - in time: the period starts no earlier than the connection's activation (`period.start` moves to
 *   it); a period that ends by then is refused (SETTLEMENT_PERIOD_BEFORE_CONNECTION);
 * - in orders: only its own integration's orders are named; a payment of another partner's order
 *   is listed with `order: null`.
 * Every movement of the account in that time is still listed, since only the whole account ties to
 * its balance.
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
    const rows = await queryRows<{ scopes: string[]; activated_at: Date }>(
      this.db,
      `SELECT scopes, activated_at FROM partners.connections
        WHERE integration_id = $1 AND livemode AND merchant_ref = $2 AND merchant_id IS NOT NULL AND status = 'active'`,
      [partner.integrationId, merchantId],
    );
    if (rows.length === 0) throw new AppException('NO_ACTIVE_CONNECTION');
    if (!rows[0].scopes.includes('orders.read')) throw new AppException('MISSING_SCOPE', 'The connection lacks the scope orders.read');
    const asked = statementPeriod(query);
    const activated = rows[0].activated_at.toISOString();
    if (Date.parse(asked.end) <= Date.parse(activated)) {
      throw new AppException(
        'SETTLEMENT_PERIOD_BEFORE_CONNECTION',
        `The period ends before your connection to this merchant was activated (${activated})`,
      );
    }
    const period = Date.parse(asked.start) < Date.parse(activated) ? { ...asked, start: activated } : asked;
    const ledger = await this.ledger.account(merchantId, query.currency ?? 'XAF', period.start, period.end);
    const { orders, complete } = await this.paidOrders.byTransaction(
      ledger.lines.filter((l) => l.viaQr).map((l) => l.transactionId),
      partner.integrationId,
    );
    return settlementStatement(merchantId, period, ledger, orders, complete);
  }
}
