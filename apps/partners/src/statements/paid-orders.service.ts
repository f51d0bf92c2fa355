import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PaidOrders, PaidOrdersAnswer } from '@mm/contracts';
import { queryRows } from '@mm/platform';

/**
 * Which ledger transactions paid a live order, and which: the link partners recorded when it turned
 * the ledger's `transaction.completed` into `order.paid` (orders.ledger_transaction_id). A payment
 * recorded as an anomaly (it could not pay its order) paid none and is not listed.
 *
 * The link exists only once partners has applied the ledger's event, a moment after the payment
 * (the outbox relay, then the queue). Every QR payment's event leaves a row in
 * `ledger_events_processed`, whatever its outcome, so the transactions without one are those not
 * applied yet (`unapplied`): a statement listing one is not final.
 */
@Injectable()
export class PaidOrdersService {
  constructor(private readonly db: DataSource) {}

  /** `integrationId`: only that integration's orders (a partner sees its own orders, never another's). */
  async lookup(transactionIds: string[], integrationId?: string): Promise<PaidOrdersAnswer> {
    if (transactionIds.length === 0) return { orders: [], unapplied: [] };
    const ids = transactionIds.map((id) => id.toLowerCase());
    const rows = await queryRows<{ ledger_transaction_id: string; id: string; external_reference: string | null }>(
      this.db,
      `SELECT ledger_transaction_id, id, external_reference FROM partners.orders
        WHERE ledger_transaction_id = ANY($1::uuid[]) AND livemode AND status = 'paid' AND ($2::uuid IS NULL OR integration_id = $2)
        ORDER BY ledger_transaction_id`,
      [ids, integrationId ?? null],
    );
    const applied = await queryRows<{ transaction_id: string }>(
      this.db,
      `SELECT DISTINCT transaction_id FROM partners.ledger_events_processed WHERE transaction_id = ANY($1::uuid[])`,
      [ids],
    );
    const seen = new Set(applied.map((r) => r.transaction_id));
    return {
      orders: rows.map((r) => ({ transactionId: r.ledger_transaction_id, orderId: r.id, externalReference: r.external_reference })),
      unapplied: [...new Set(ids)].filter((id) => !seen.has(id)).sort(),
    };
  }

  /** The same, keyed by transaction, for a statement's lines. */
  async byTransaction(transactionIds: string[], integrationId?: string): Promise<{ orders: PaidOrders; complete: boolean }> {
    const answer = await this.lookup(transactionIds, integrationId);
    return {
      orders: new Map(answer.orders.map((r) => [r.transactionId, { orderId: r.orderId, externalReference: r.externalReference }])),
      complete: answer.unapplied.length === 0,
    };
  }
}
