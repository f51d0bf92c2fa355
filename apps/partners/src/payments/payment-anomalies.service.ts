import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Page, PaymentAnomalyView } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { cursorClause, decodeCursor, pageOf } from '../common/cursor';
import { iso, money } from '../common/iso';

interface AnomalyRow {
  id: string;
  kind: PaymentAnomalyView['kind'];
  order_id: string;
  transaction_id: string;
  transaction_reference: string;
  amount: string;
  currency: string;
  destination_account_id: string;
  details: Record<string, unknown>;
  status: 'open' | 'resolved';
  created_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution: string | null;
}

function toView(r: AnomalyRow): PaymentAnomalyView {
  return {
    id: r.id,
    kind: r.kind,
    orderId: r.order_id,
    transactionId: r.transaction_id,
    transactionReference: r.transaction_reference,
    amount: money(r.amount),
    currency: r.currency,
    destinationAccountId: r.destination_account_id,
    details: r.details,
    status: r.status,
    createdAt: r.created_at.toISOString(),
    resolvedAt: iso(r.resolved_at),
    resolvedBy: r.resolved_by,
    resolution: r.resolution,
  };
}

/** The operations queue of payments to reverse (docs/partners.md "When a payment cannot pay its order"). */
@Injectable()
export class PaymentAnomaliesService {
  private readonly logger = new Logger(PaymentAnomaliesService.name);

  constructor(private readonly db: DataSource) {}

  async list(status: 'open' | 'resolved' | undefined, cursorRaw: string | undefined, limit: number): Promise<Page<PaymentAnomalyView>> {
    const params: unknown[] = [];
    let where = 'true';
    if (status) {
      params.push(status);
      where += ` AND status = $${params.length}`;
    }
    where += cursorClause(decodeCursor(cursorRaw), params);
    params.push(limit + 1);
    const rows = await queryRows<AnomalyRow>(
      this.db,
      `SELECT * FROM partners.payment_anomalies WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, toView);
  }

  /** Records how operations settled it (typically the reference of the reversal); once. */
  async resolve(id: string, resolution: string, resolvedBy: string): Promise<PaymentAnomalyView> {
    const rows = await queryRows<AnomalyRow>(
      this.db,
      `UPDATE partners.payment_anomalies SET status = 'resolved', resolved_at = now(), resolved_by = $2, resolution = $3
        WHERE id = $1 AND status = 'open' RETURNING *`,
      [id, resolvedBy, resolution],
    );
    if (rows.length === 0) {
      const exists = await queryRows<{ id: string }>(this.db, `SELECT id FROM partners.payment_anomalies WHERE id = $1`, [id]);
      throw exists.length === 0
        ? new AppException('PAYMENT_ANOMALY_NOT_FOUND')
        : new AppException('CONFLICT', 'This anomaly is already resolved');
    }
    this.logger.log({ msg: 'payment anomaly resolved', anomalyId: id, resolvedBy });
    return toView(rows[0]);
  }
}
