import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PaidOrderRef } from '@mm/contracts';
import type { PaidOrders } from '@mm/contracts';
import { queryRows } from '@mm/platform';

/**
 * Which ledger transactions paid a live order, and which: the link partners recorded when it turned
 * the ledger's `transaction.completed` into `order.paid` (orders.ledger_transaction_id). A payment
 * recorded as an anomaly (it could not pay its order) paid none and is not listed.
 */
@Injectable()
export class PaidOrdersService {
  constructor(private readonly db: DataSource) {}

  async lookup(transactionIds: string[]): Promise<PaidOrderRef[]> {
    if (transactionIds.length === 0) return [];
    const rows = await queryRows<{ ledger_transaction_id: string; id: string; external_reference: string | null }>(
      this.db,
      `SELECT ledger_transaction_id, id, external_reference FROM partners.orders
        WHERE ledger_transaction_id = ANY($1::uuid[]) AND livemode AND status = 'paid'
        ORDER BY ledger_transaction_id`,
      [transactionIds.map((id) => id.toLowerCase())],
    );
    return rows.map((r) => ({ transactionId: r.ledger_transaction_id, orderId: r.id, externalReference: r.external_reference }));
  }

  /** The same, keyed by transaction, for a statement's lines. */
  async byTransaction(transactionIds: string[]): Promise<PaidOrders> {
    const refs = await this.lookup(transactionIds);
    return new Map(refs.map((r) => [r.transactionId, { orderId: r.orderId, externalReference: r.externalReference }]));
  }
}
