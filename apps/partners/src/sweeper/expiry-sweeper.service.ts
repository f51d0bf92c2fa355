import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type OrderExpiredData, PARTNER_EVENT_TYPES } from '@mm/contracts';
import { PeriodicJob, queryRows, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { money } from '../common/iso';
import { EventRelay } from '../events/event-relay.service';
import { EventsService } from '../events/events.service';
import { ORDER_COLUMNS, type OrderRow, givenExtras } from '../orders/order-row';
import { PartnersConfig } from '../partners.config';

const BATCH = 200;

/**
 * Moves what time has run out on: pending connections past `pendingExpiresAt` → expired, pending
 * orders past `expiresAt` + grace → expired (with `order.expired`), and forgets idempotency keys
 * older than 24 h. Safe with several replicas: rows are claimed with FOR UPDATE SKIP LOCKED and each
 * update re-checks the state, so a row is expired once, and never after a payment has marked it paid.
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
    for (let n = BATCH; n === BATCH; orders += n) n = await this.expireOrders();
    let connections = 0;
    for (let n = BATCH; n === BATCH; connections += n) n = await this.expireConnections();
    await this.db.query(`DELETE FROM partners.idempotency_keys WHERE expires_at <= now()`);
    if (orders > 0) this.relay.kick();
    if (orders + connections > 0) this.logger.log({ msg: 'expired', orders, connections });
    return { orders, connections };
  }

  private async expireOrders(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<OrderRow>(
        tx,
        `UPDATE partners.orders SET status = 'expired', expired_at = now(), updated_at = now()
          WHERE id IN (SELECT id FROM partners.orders
                        WHERE status = 'pending' AND expires_at <= now() - $1::int * interval '1 second'
                        ORDER BY expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
            AND status = 'pending'
          RETURNING ${ORDER_COLUMNS}`,
        [this.config.PARTNERS_ORDER_EXPIRY_GRACE_SEC],
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
