import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type OrderExpiredData, PARTNER_EVENT_TYPES, QR_PAYMENTS_MAX_TOKENS, type QrPaymentsAnswer } from '@mm/contracts';
import { PeriodicJob, queryRows, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { money } from '../common/iso';
import { EventRelay } from '../events/event-relay.service';
import { EventsService } from '../events/events.service';
import { ORDER_COLUMNS, type OrderRow, givenExtras } from '../orders/order-row';
import { PartnersConfig } from '../partners.config';
import { isTransactionCompleted } from '../payments/ledger-event';
import { OrderPaymentService } from '../payments/order-payment.service';
import { QrPaymentsClient } from '../upstreams/qr-payments.client';

/** Where the next batch of due orders starts: after this one, in (expires_at, id) order. */
interface Cursor {
  expiresAt: string;
  id: string;
}

const BATCH = QR_PAYMENTS_MAX_TOKENS;
/** Batches of orders one sweep looks at, at most (a backlog is finished by the next sweeps). */
const MAX_ORDER_BATCHES = 50;

/**
 * Moves what time has run out on: pending connections past `pendingExpiresAt` → expired, pending
 * orders past `expiresAt` + grace → expired (with `order.expired`), and forgets idempotency keys
 * older than 24 h. Safe with several replicas: each update re-checks the state, so a row is expired
 * once, and never after a payment has marked it paid.
 *
 * A live order is expired only once the ledger says nothing paid its QR token and nothing still may
 * (QrPaymentsClient): partners learns of a payment from the ledger's events, which can reach it late
 * (Redis down, a backlog, a restart) or never (a job dropped), while the payment itself committed in
 * time. Expiring such an order would tell the partner the sale failed while the customer paid. The
 * payment is applied from the ledger's answer instead (paidOrPaying); when the ledger cannot be
 * asked, no live order is expired in that sweep. Test orders have no payments in the ledger: time
 * alone expires them.
 */
@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExpirySweeper.name);
  private readonly job = new PeriodicJob(
    'partners.expiry-sweep',
    () => this.sweep(),
    (error) => this.logger.error({ err: error }, 'expiry sweep failed'),
  );

  constructor(
    private readonly db: DataSource,
    private readonly qrPayments: QrPaymentsClient,
    private readonly orderPayments: OrderPaymentService,
    private readonly events: EventsService,
    private readonly relay: EventRelay,
    private readonly config: PartnersConfig,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.PARTNERS_SWEEP_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  async sweep(): Promise<{ orders: number; connections: number }> {
    let orders = 0;
    let after: Cursor | undefined;
    for (let batch = 0; batch < MAX_ORDER_BATCHES; batch++) {
      const done = await this.expireOrders(after);
      orders += done.expired;
      if (!done.next) break;
      after = done.next;
    }
    let connections = 0;
    for (let n = BATCH; n === BATCH; connections += n) n = await this.expireConnections();
    await this.db.query(`DELETE FROM partners.idempotency_keys WHERE expires_at <= now()`);
    if (orders > 0) this.relay.kick();
    if (orders + connections > 0) this.logger.log({ msg: 'expired', orders, connections });
    return { orders, connections };
  }

  /**
   * One batch of orders due, after `after` in (expires_at, id) order: those the ledger did not pay
   * are expired; `next` is where the following batch starts (none when this one was the last).
   */
  private async expireOrders(after: Cursor | undefined): Promise<{ expired: number; next?: Cursor }> {
    const grace = this.config.PARTNERS_ORDER_EXPIRY_GRACE_SEC;
    // expires_at as text: the cursor keeps its microseconds (a Date would drop them and repeat a row)
    const due = await queryRows<{ id: string; qr_token: string; livemode: boolean; expires_at: string }>(
      this.db,
      `SELECT id, qr_token, livemode, expires_at::text AS expires_at FROM partners.orders
        WHERE status = 'pending' AND expires_at <= now() - $1::int * interval '1 second'
          AND ($2::timestamptz IS NULL OR (expires_at, id) > ($2::timestamptz, $3::uuid))
        ORDER BY expires_at, id LIMIT ${BATCH}`,
      [grace, after?.expiresAt ?? null, after?.id ?? null],
    );
    if (due.length === 0) return { expired: 0 };
    const last = due[due.length - 1];
    const next = due.length === BATCH ? { expiresAt: last.expires_at, id: last.id } : undefined;
    const live = due.filter((o) => o.livemode);
    const waiting = await this.paidOrPaying(live);
    // The ledger could not be asked: this batch's test orders only, and no further batch this sweep.
    if (!waiting) {
      const ids = due.filter((o) => !o.livemode).map((o) => o.id);
      return { expired: ids.length > 0 ? await this.expire(ids, grace) : 0 };
    }
    const ids = due.filter((o) => !waiting.has(o.id)).map((o) => o.id);
    if (ids.length === 0) return { expired: 0, next };
    return { expired: await this.expire(ids, grace), next };
  }

  /**
   * Of these live orders, the ids of those to leave pending, or undefined when the ledger cannot be
   * asked. An order the ledger paid has its payment applied here now, from the ledger's own event
   * (the one its `ledger-events` job carries, so applying it twice is a duplicate): a payment whose
   * event is late or lost pays its order, and one applied and refused before (an anomaly) leaves it
   * to expire. Left pending: an order with an intent that may still pay it, and one whose payment
   * could not be applied this time (the next sweep tries again).
   */
  private async paidOrPaying(live: Array<{ id: string; qr_token: string }>): Promise<Set<string> | undefined> {
    if (live.length === 0) return new Set();
    let answer: QrPaymentsAnswer;
    try {
      answer = await this.qrPayments.outcomes(live.map((o) => o.qr_token));
    } catch (error) {
      this.logger.warn({
        msg: 'the ledger could not be asked whether orders were paid: no live order expired in this sweep',
        alert: 'partners.expiry_unverified',
        err: error,
      });
      return undefined;
    }
    const open = new Set(answer.open);
    const unapplied = new Set(answer.paid);
    const payments = (answer.payments ?? []).filter((e) => isTransactionCompleted(e));
    let late = 0;
    for (const payment of payments) {
      try {
        if ((await this.orderPayments.applyTransactionCompleted(payment)) !== 'duplicate') late++;
        unapplied.delete(payment.qrToken ?? '');
      } catch (error) {
        this.logger.warn({
          msg: 'a payment the ledger reported could not be applied: its order waits',
          transactionId: payment.transactionId,
          err: error,
        });
      }
    }
    if (late > 0) {
      // Their ledger events had not reached this service (Redis down, a backlog, a lost job).
      this.logger.warn({
        msg: 'payments applied from the ledger before their events arrived',
        alert: 'partners.payment_lag',
        payments: late,
      });
    }
    return new Set(live.filter((o) => open.has(o.qr_token) || unapplied.has(o.qr_token)).map((o) => o.id));
  }

  /** Expires these orders (still pending and due: a payment applied since is kept), each with its `order.expired`. */
  private async expire(ids: string[], grace: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<OrderRow>(
        tx,
        `UPDATE partners.orders SET status = 'expired', expired_at = now(), updated_at = now()
          WHERE id = ANY ($1::uuid[]) AND status = 'pending' AND expires_at <= now() - $2::int * interval '1 second'
          RETURNING ${ORDER_COLUMNS}`,
        [ids, grace],
      );
      for (const row of rows) {
        const data: OrderExpiredData = {
          orderId: row.id,
          amount: money(row.amount),
          currencyCode: row.currency,
          expiresAt: row.expires_at.toISOString(),
          expiredAt: row.expired_at!.toISOString(),
          ...givenExtras(row),
        };
        await this.events.record(tx, {
          integrationId: row.integration_id,
          livemode: row.livemode,
          type: PARTNER_EVENT_TYPES.orderExpired,
          subjectId: row.id,
          data,
        });
      }
      return rows.length;
    });
  }

  private async expireConnections(): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `UPDATE partners.connections SET status = 'expired', expired_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM partners.connections WHERE status = 'pending' AND pending_expires_at <= now()
                      ORDER BY pending_expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
          AND status = 'pending'
        RETURNING id`,
    );
    return rows.length;
  }
}
