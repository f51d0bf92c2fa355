import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ConnectionStatus, IntegrationSummary, Page, PartnerEventRef, PartnerMode, StaffConnectionView } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { cursorClause, decodeCursor, pageOf } from '../common/cursor';
import { iso } from '../common/iso';
import { EFFECTIVE_STATUS } from '../connections/connection-row';

interface SummaryRow {
  id: string;
  name: string;
  technical_contact_email: string;
  status: 'active' | 'revoked';
  test_endpoint_id: string;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
  pending: number;
  active: number;
}

interface StaffConnectionRow {
  id: string;
  integration_id: string;
  livemode: boolean;
  merchant_id: string | null;
  status: ConnectionStatus;
  scopes: StaffConnectionView['scopes'];
  requested_reason: string | null;
  pending_expires_at: Date;
  activated_at: Date | null;
  revoked_at: Date | null;
  revoked_by: StaffConnectionView['revokedBy'];
  created_at: Date;
}

interface EventRow {
  id: string;
  integration_id: string;
  livemode: boolean;
  type: string;
  subject_id: string;
  created_at: Date;
  dispatched_at: Date | null;
}

const SUMMARY = `SELECT i.id, i.name, i.technical_contact_email, i.status, i.test_endpoint_id, i.revoked_at, i.created_at, i.updated_at,
       (SELECT count(*)::int FROM partners.connections c WHERE c.integration_id = i.id AND c.livemode AND ${EFFECTIVE_STATUS} = 'pending') AS pending,
       (SELECT count(*)::int FROM partners.connections c WHERE c.integration_id = i.id AND c.livemode AND c.status = 'active') AS active
  FROM partners.integrations i`;

const EVENT_COLUMNS = `id, integration_id, livemode, type, subject_id, created_at, dispatched_at`;

const mode = (livemode: boolean): PartnerMode => (livemode ? 'live' : 'test');

function toSummary(r: SummaryRow): IntegrationSummary {
  return {
    id: r.id,
    name: r.name,
    technicalContactEmail: r.technical_contact_email,
    status: r.status,
    revokedAt: iso(r.revoked_at),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    endpointIds: { live: r.id, test: r.test_endpoint_id },
    connections: { pending: r.pending, active: r.active },
  };
}

function toEventRef(r: EventRow): PartnerEventRef {
  return {
    id: r.id,
    integrationId: r.integration_id,
    mode: mode(r.livemode),
    type: r.type,
    subjectId: r.subject_id,
    createdAt: r.created_at.toISOString(),
    dispatchedAt: iso(r.dispatched_at),
  };
}

/**
 * What staff read about integrations through the orchestrator's back office: the integrations with
 * their endpoints and connection counts, every connection with the real merchant (never the
 * pseudonym the integration sees before acceptance), and the events written about an order.
 */
@Injectable()
export class BackofficeService {
  constructor(private readonly db: DataSource) {}

  async integrations(cursor: string | undefined, limit: number): Promise<Page<IntegrationSummary>> {
    const params: unknown[] = [];
    const where = cursorClause(decodeCursor(cursor), params, 'i');
    params.push(limit + 1);
    const rows = await queryRows<SummaryRow>(
      this.db,
      `${SUMMARY} WHERE true${where} ORDER BY i.created_at DESC, i.id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, toSummary);
  }

  async integration(id: string): Promise<IntegrationSummary> {
    const rows = await queryRows<SummaryRow>(this.db, `${SUMMARY} WHERE i.id = $1`, [id]);
    if (rows.length === 0) throw new AppException('INTEGRATION_NOT_FOUND');
    return toSummary(rows[0]);
  }

  async connections(
    integrationId: string,
    q: { status?: ConnectionStatus; mode?: PartnerMode; cursor?: string; limit?: number },
  ): Promise<Page<StaffConnectionView>> {
    await this.integration(integrationId);
    const params: unknown[] = [integrationId];
    let where = `c.integration_id = $1`;
    if (q.mode) {
      params.push(q.mode === 'live');
      where += ` AND c.livemode = $${params.length}`;
    }
    if (q.status) {
      params.push(q.status);
      where += ` AND ${EFFECTIVE_STATUS} = $${params.length}`;
    }
    where += cursorClause(decodeCursor(q.cursor), params, 'c');
    const limit = q.limit ?? 20;
    params.push(limit + 1);
    const rows = await queryRows<StaffConnectionRow>(
      this.db,
      `SELECT c.id, c.integration_id, c.livemode, c.merchant_id, ${EFFECTIVE_STATUS} AS status, c.scopes, c.requested_reason,
              c.pending_expires_at, c.activated_at, c.revoked_at, c.revoked_by, c.created_at
         FROM partners.connections c WHERE ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, (r) => ({
      id: r.id,
      integrationId: r.integration_id,
      mode: mode(r.livemode),
      merchantId: r.merchant_id,
      status: r.status,
      scopes: r.scopes,
      requestedReason: r.requested_reason,
      pendingExpiresAt: r.pending_expires_at.toISOString(),
      activatedAt: iso(r.activated_at),
      revokedAt: iso(r.revoked_at),
      revokedBy: r.revoked_by,
      createdAt: r.created_at.toISOString(),
    }));
  }

  /** The events written about one order (an unknown order has none), oldest first; the (type, subject_id) key finds them. */
  async orderEvents(orderId: string): Promise<PartnerEventRef[]> {
    const rows = await queryRows<EventRow>(
      this.db,
      `SELECT ${EVENT_COLUMNS} FROM partners.events WHERE type IN ('order.paid', 'order.expired') AND subject_id = $1 ORDER BY created_at, id`,
      [orderId],
    );
    return rows.map(toEventRef);
  }

  async event(eventId: string): Promise<PartnerEventRef> {
    const rows = await queryRows<EventRow>(this.db, `SELECT ${EVENT_COLUMNS} FROM partners.events WHERE id = $1`, [eventId]);
    if (rows.length === 0) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
    return toEventRef(rows[0]);
  }
}
