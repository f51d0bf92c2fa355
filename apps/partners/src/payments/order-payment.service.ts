import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type OrderPaidData, PARTNER_EVENT_TYPES, type PaymentAnomalyKind, type TransactionCompletedEvent } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { MetricsService, queryRows, withArticle } from '@mm/platform';
import { randomBase62 } from '../common/base62';
import { money } from '../common/iso';
import { EventRelay } from '../events/event-relay.service';
import { EventsService } from '../events/events.service';
import type { PartnerPrincipal } from '../keys/partner-principal';
import { ORDER_COLUMNS, type OrderRow, type OrderView, givenExtras, toOrderView } from '../orders/order-row';

export type PaymentOutcome = 'paid' | 'duplicate' | 'not_an_order' | 'anomaly';

/**
 * Turns the ledger's `transaction.completed` into `order.paid`. In one database transaction: the
 * ledger event is marked consumed (a second delivery of it does nothing), the order is locked and
 * checked against the payment, the order is marked paid and its `order.paid` event recorded. The
 * relay then hands the event to the dispatcher.
 *
 * A payment that cannot pay its order — the order had expired, was already paid by another
 * transaction, is a test order, or the payment differs from it (amount, currency, credited account,
 * kind of transaction) — is never dropped: it is recorded in `payment_anomalies` with everything
 * needed to reverse it, logged at error level with `alert: partners.payment_anomaly`, and counted
 * in `partners_payment_anomalies_total`; operations then reverse it (docs/partners.md).
 */
@Injectable()
export class OrderPaymentService {
  private readonly logger = new Logger(OrderPaymentService.name);
  private readonly anomalies;
  private readonly paidCounter;

  constructor(
    private readonly db: DataSource,
    private readonly events: EventsService,
    private readonly relay: EventRelay,
    metrics: MetricsService,
  ) {
    this.anomalies = metrics.counter('partners_payment_anomalies_total', 'Ledger payments that could not pay their order (to reverse)', [
      'kind',
    ]);
    this.paidCounter = metrics.counter('partners_orders_paid_total', 'Orders marked paid', ['mode']);
  }

  /** Which of these ledger event ids were already applied (one read; for a retried batch). */
  async appliedEventIds(eventIds: string[]): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const rows = await queryRows<{ event_id: string }>(
      this.db,
      `SELECT event_id FROM partners.ledger_events_processed WHERE event_id = ANY($1::uuid[])`,
      [eventIds],
    );
    return new Set(rows.map((r) => r.event_id));
  }

  async applyTransactionCompleted(event: TransactionCompletedEvent): Promise<PaymentOutcome> {
    // Most ledger transactions are not QR payments: nothing to look at, nothing to record.
    if (!event.qrToken) return 'not_an_order';
    const result = await this.db.transaction(async (tx) => {
      const first = await queryRows<{ event_id: string }>(
        tx,
        `INSERT INTO partners.ledger_events_processed (event_id, transaction_id, outcome) VALUES ($1, $2, 'processing')
         ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [event.eventId, event.transactionId],
      );
      if (first.length === 0) return { outcome: 'duplicate' as const };
      const orders = await queryRows<OrderRow>(tx, `SELECT ${ORDER_COLUMNS} FROM partners.orders WHERE qr_token = $1 FOR UPDATE`, [
        event.qrToken,
      ]);
      const order = orders[0];
      let outcome: PaymentOutcome;
      let anomaly: { kind: PaymentAnomalyKind; details: Record<string, unknown> } | null = null;
      if (!order) {
        outcome = 'not_an_order';
      } else {
        anomaly = this.check(order, event);
        if (anomaly) {
          await this.recordAnomaly(tx, order, event, anomaly.kind, anomaly.details);
          outcome = 'anomaly';
        } else {
          await this.markPaid(tx, order, event.occurredAt, event.transactionId, event.referenceId, event.eventId);
          outcome = 'paid';
        }
      }
      await tx.query(`UPDATE partners.ledger_events_processed SET outcome = $2, order_id = $3 WHERE event_id = $1`, [
        event.eventId,
        outcome,
        order?.id ?? null,
      ]);
      return { outcome, order, anomaly };
    });
    if (result.outcome === 'paid') {
      this.paidCounter.inc({ mode: 'live' });
      this.relay.kick();
    }
    if (result.outcome === 'anomaly' && result.anomaly && result.order) {
      this.anomalies.inc({ kind: result.anomaly.kind });
      this.logger.error({
        msg: 'payment could not pay its order: recorded for reversal',
        alert: 'partners.payment_anomaly',
        kind: result.anomaly.kind,
        orderId: result.order.id,
        transactionId: event.transactionId,
        referenceId: event.referenceId,
        amount: event.amount,
        currency: event.currency,
      });
    }
    return result.outcome;
  }

  /**
   * Test-mode helper: the order is paid as if a customer had paid it (no money moves). Only while a
   * live order's QR would be payable (pending, before `expiresAt`): an order past it, not yet swept,
   * is refused as a customer's payment of it would be (422 ORDER_NOT_PAYABLE).
   */
  async payTestOrder(partner: PartnerPrincipal, orderId: string): Promise<OrderView> {
    const order = await this.db.transaction(async (tx) => {
      const rows = await queryRows<OrderRow & { payable: boolean }>(
        tx,
        `SELECT ${ORDER_COLUMNS}, expires_at > now() AS payable
           FROM partners.orders WHERE id = $1 AND integration_id = $2 AND NOT livemode FOR UPDATE`,
        [orderId, partner.integrationId],
      );
      if (rows.length === 0) throw new AppException('ORDER_NOT_FOUND');
      if (rows[0].status !== 'pending') throw new AppException('CONFLICT', `${withArticle(rows[0].status, true)} order cannot be paid`);
      if (!rows[0].payable) throw new AppException('ORDER_NOT_PAYABLE', 'The order is past its expiresAt');
      return this.markPaid(tx, rows[0], new Date().toISOString(), null, `TEST${randomBase62(12).toUpperCase()}`, null);
    });
    this.paidCounter.inc({ mode: 'test' });
    this.relay.kick();
    return toOrderView(order);
  }

  private check(order: OrderRow, event: TransactionCompletedEvent): { kind: PaymentAnomalyKind; details: Record<string, unknown> } | null {
    if (!order.livemode) return { kind: 'test_order', details: { reason: 'a test-mode order was paid through the ledger' } };
    if (order.status === 'paid') {
      return { kind: 'order_already_paid', details: { paidBy: order.ledger_transaction_id, paidAt: order.paid_at?.toISOString() } };
    }
    if (order.status === 'expired') return { kind: 'order_expired', details: { expiredAt: order.expired_at?.toISOString() } };
    const mismatches: Record<string, { expected: unknown; actual: unknown }> = {};
    if (money(order.amount) !== event.amount) mismatches.amount = { expected: money(order.amount), actual: event.amount };
    if (order.currency !== event.currency) mismatches.currency = { expected: order.currency, actual: event.currency };
    if (order.destination_account_id !== event.destinationAccountId.toLowerCase()) {
      mismatches.destinationAccountId = { expected: order.destination_account_id, actual: event.destinationAccountId };
    }
    if (event.intentType !== 'TRANSFER') mismatches.intentType = { expected: 'TRANSFER', actual: event.intentType };
    return Object.keys(mismatches).length > 0 ? { kind: 'payment_mismatch', details: { mismatches } } : null;
  }

  private async markPaid(
    tx: EntityManager,
    order: OrderRow,
    paidAtIso: string,
    transactionId: string | null,
    reference: string,
    ledgerEventId: string | null,
  ): Promise<OrderRow> {
    const rows = await queryRows<OrderRow>(
      tx,
      `UPDATE partners.orders SET status = 'paid', paid_at = $2, ledger_transaction_id = $3, transaction_reference = $4, ledger_event_id = $5, updated_at = now()
        WHERE id = $1 AND status = 'pending' RETURNING ${ORDER_COLUMNS}`,
      [order.id, paidAtIso, transactionId, reference, ledgerEventId],
    );
    const paid = rows[0];
    // docs/partners.md "5. Webhooks": transactionId is the ledger's readable reference (what support
    // searches by); paidAt is the ledger commit time; the optional fields only when given.
    const data: OrderPaidData = {
      orderId: paid.id,
      transactionId: reference,
      amount: money(paid.amount),
      currencyCode: paid.currency,
      paidAt: paid.paid_at!.toISOString(),
      ...givenExtras(paid),
    };
    await this.events.record(tx, {
      integrationId: paid.integration_id,
      livemode: paid.livemode,
      type: PARTNER_EVENT_TYPES.orderPaid,
      subjectId: paid.id,
      data,
    });
    return paid;
  }

  private async recordAnomaly(
    tx: EntityManager,
    order: OrderRow,
    event: TransactionCompletedEvent,
    kind: PaymentAnomalyKind,
    details: Record<string, unknown>,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO partners.payment_anomalies (id, kind, order_id, ledger_event_id, transaction_id, transaction_reference, amount, currency, destination_account_id, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::json)`,
      [
        randomUUID(),
        kind,
        order.id,
        event.eventId,
        event.transactionId,
        event.referenceId,
        event.amount,
        event.currency,
        event.destinationAccountId,
        JSON.stringify({ ...details, sourceAccountId: event.sourceAccountId, intentId: event.intentId, occurredAt: event.occurredAt }),
      ],
    );
  }
}
