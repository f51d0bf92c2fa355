import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type DispatcherEventView, type Page, type WebhookEventSearch, type WebhookEventStatus, isCalendarDate } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';

interface Row {
  id: string;
  integration_id: string;
  event_type: string;
  status: WebhookEventStatus;
  attempt_count: number;
  resend_count: number;
  created_at: Date;
  received_at: Date;
  /** received_at as PostgreSQL prints it (microseconds): the cursor keeps the exact position */
  at: string;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function badCursor(): AppException {
  return new AppException('VALIDATION_ERROR', 'cursor is not a cursor this API returned', {
    errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'cursor is not a cursor this API returned' }],
  });
}

/**
 * timestamptz as PostgreSQL prints it (`2026-11-22 10:00:00.012345+00`), with hours, minutes and
 * seconds in range; the day is checked by isCalendarDate. A month 13 or an hour 25 would otherwise
 * reach the `::timestamptz` cast and fail there as a 500.
 */
const PG_TIMESTAMPTZ = /^\d{4}-\d{2}-\d{2} ([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?[+-](0\d|1[0-5])(:[0-5]\d)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opaque to callers: base64url of `<received_at text>|<id>` of the last row of the page. */
function decodeCursor(raw: string | undefined): { at: string; id: string } | undefined {
  if (!raw) return undefined;
  const [at, id, extra] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !PG_TIMESTAMPTZ.test(at ?? '') || !isCalendarDate(at.slice(0, 10)) || !UUID.test(id ?? '')) {
    throw badCursor();
  }
  return { at, id };
}

const COLUMNS = `id, integration_id, event_type, status, attempt_count, resend_count, created_at, received_at, received_at::text AS at,
              last_attempt_at, delivered_at, failed_at`;

/** The filters of one endpoint's subquery ($1 statuses, $2 type, $3 since, $4 until, $5/$6 the cursor). */
const FILTERS = `($1::text[] IS NULL OR status = ANY($1::text[]))
            AND ($2::text IS NULL OR event_type = $2)
            AND ($3::timestamptz IS NULL OR received_at >= $3)
            AND ($4::timestamptz IS NULL OR received_at < $4)
            AND ($5::timestamptz IS NULL OR (received_at, id) < ($5::timestamptz, $6::uuid))`;

/** The statuses a filter stands for. */
function statusesOf(filter: WebhookEventSearch['status']): WebhookEventStatus[] | null {
  if (!filter) return null;
  return filter === 'undelivered' ? ['failed', 'held'] : [filter];
}

/** Read side of the back office: an integration's events, and how many an endpoint holds. */
@Injectable()
export class EventSearchRepository {
  constructor(private readonly db: DataSource) {}

  async search(q: WebhookEventSearch): Promise<Page<DispatcherEventView>> {
    const limit = q.limit ?? 20;
    const cursor = decodeCursor(q.cursor);
    if (q.since && q.until && !(Date.parse(q.since) < Date.parse(q.until))) throw new AppException('INVALID_TIME_WINDOW');
    const endpointIds = [...new Set(q.endpointIds.map((id) => id.toLowerCase()))];
    // One limited subquery per endpoint, each reading events_integration_received_idx in its order
    // and stopping after `limit + 1` rows, then merged: `integration_id = ANY(...)` cannot read the
    // index in order and would sort every event of the endpoints for each page.
    const perEndpoint = endpointIds.map(
      (_, i) => `(SELECT ${COLUMNS} FROM webhooks.events
          WHERE integration_id = $${i + 8}::uuid AND ${FILTERS}
          ORDER BY received_at DESC, id DESC LIMIT $7)`,
    );
    const rows = await queryRows<Row>(
      this.db,
      `SELECT * FROM (${perEndpoint.join(' UNION ALL ')}) page ORDER BY received_at DESC, id DESC LIMIT $7`,
      [
        statusesOf(q.status),
        q.eventType ?? null,
        q.since ?? null,
        q.until ?? null,
        cursor?.at ?? null,
        cursor?.id ?? null,
        limit + 1,
        ...endpointIds,
      ],
    );
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map((r) => ({
        id: r.id,
        integrationId: r.integration_id,
        event: r.event_type,
        status: r.status,
        attemptCount: r.attempt_count,
        resendCount: r.resend_count,
        createdAt: r.created_at.toISOString(),
        receivedAt: r.received_at.toISOString(),
        lastAttemptAt: iso(r.last_attempt_at),
        deliveredAt: iso(r.delivered_at),
        failedAt: iso(r.failed_at),
      })),
      nextCursor: more ? Buffer.from(`${last.at}|${last.id}`).toString('base64url') : null,
    };
  }

  async heldCount(endpointId: string): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM webhooks.events WHERE integration_id = $1 AND status = 'held'`,
      [endpointId],
    );
    return rows[0].n;
  }
}
