import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Page, PartnerEventType, WebhookEnvelope } from '@mm/contracts';
import { queryRows } from '@mm/platform';
import { cursorClause, decodeCursor, pageOf } from '../common/cursor';
import type { PartnerPrincipal } from '../keys/partner-principal';
import { PartnersConfig } from '../partners.config';

export interface NewEvent {
  integrationId: string;
  livemode: boolean;
  type: PartnerEventType;
  /** the order or connection concerned: one event of a type per subject */
  subjectId: string;
  data: object;
}

interface EventRow {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export function toEnvelope(row: EventRow): WebhookEnvelope {
  return { event: row.type, id: row.id, createdAt: row.created_at.toISOString(), data: row.data };
}

/**
 * Events for integrations. `record` runs inside the caller's transaction (the state change and its
 * event commit together or not at all); the relay then hands committed events to the dispatcher.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly db: DataSource,
    private readonly config: PartnersConfig,
  ) {}

  /** Returns the new event's id, or null when this subject already has an event of this type. */
  async record(tx: EntityManager, event: NewEvent): Promise<string | null> {
    const rows = await queryRows<{ id: string }>(
      tx,
      `INSERT INTO partners.events (id, integration_id, livemode, type, subject_id, data)
       VALUES ($1, $2, $3, $4, $5, $6::json)
       ON CONFLICT (type, subject_id) DO NOTHING RETURNING id`,
      [randomUUID(), event.integrationId, event.livemode, event.type, event.subjectId, JSON.stringify(event.data)],
    );
    return rows[0]?.id ?? null;
  }

  /** The integration's events of its key's mode, newest first, within the retention window. */
  async list(
    partner: PartnerPrincipal,
    type: string | undefined,
    cursorRaw: string | undefined,
    limit: number,
  ): Promise<Page<WebhookEnvelope>> {
    const params: unknown[] = [partner.integrationId, partner.livemode, this.config.PARTNERS_EVENTS_WINDOW_DAYS];
    let where = `integration_id = $1 AND livemode = $2 AND created_at > now() - $3::int * interval '1 day'`;
    if (type) {
      params.push(type);
      where += ` AND type = $${params.length}`;
    }
    where += cursorClause(decodeCursor(cursorRaw), params);
    params.push(limit + 1);
    const rows = await queryRows<EventRow>(
      this.db,
      `SELECT id, type, data, created_at FROM partners.events WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, toEnvelope);
  }
}
