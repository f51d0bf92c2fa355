import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import type { AttemptErrorCode } from '../delivery/attempt-result';
import type { AttemptRecord, AttemptView, EventStatus, EventView, ResendClaim, StoredEvent } from './event.types';

interface EventRow {
  id: string;
  integration_id: string;
  event_type: string;
  status: EventStatus;
  attempt_count: number;
  resend_count: number;
  created_at: Date;
  received_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
}

interface StoredRow {
  id: string;
  integration_id: string;
  event_type: string;
  body: string;
  status: EventStatus;
  resend_count: number;
}

const toStored = (r: StoredRow): StoredEvent => ({
  id: r.id,
  integrationId: r.integration_id,
  eventType: r.event_type,
  body: r.body,
  status: r.status,
  run: r.resend_count,
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The held rule, shared by every write of 'held': an event is held only while its endpoint is not
 * enabled (missing or disabled), read under a share lock on the endpoint row. An enable committed
 * after the attempt read the endpoint is seen, and an enable not yet committed makes the write wait
 * for it, so the enable's replay either finds the event held or the event is not held at all.
 * The row is locked without filtering on its status: a filter would be checked against the version
 * from before an enable in progress and skip the wait. `when` (SQL boolean) limits the lock to
 * writes that do hold. Used as CTE `ep`, tested with HOLDABLE.
 */
const ENDPOINT_FOR_HOLD = (integrationId: string, when = 'true') =>
  `SELECT status FROM webhooks.endpoints WHERE integration_id = ${integrationId} AND ${when} FOR SHARE`;
const HOLDABLE = `NOT EXISTS (SELECT 1 FROM ep WHERE ep.status = 'enabled')`;

/** The events table (body + final state) and the attempt log. Raw SQL: every write is one statement. */
@Injectable()
export class WebhookEventsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Records an event once and returns it as stored: a second enqueue of the same id keeps the first
   * body (one round trip either way).
   */
  async ingest(event: { id: string; integrationId: string; eventType: string; body: string; createdAt: string }): Promise<StoredEvent> {
    const rows: StoredRow[] = await this.db.query(
      `WITH ins AS (
         INSERT INTO webhooks.events (id, integration_id, event_type, body, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO NOTHING
         RETURNING id, integration_id, event_type, body, status, resend_count)
       SELECT * FROM ins
       UNION ALL
       SELECT id, integration_id, event_type, body, status, resend_count FROM webhooks.events WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
      [event.id, event.integrationId, event.eventType, event.body, event.createdAt],
    );
    return toStored(rows[0]);
  }

  /**
   * The event as a delivery run reads it. The share lock waits for a resend claimed but not yet
   * committed (the idempotent resend queues its job before it commits), so the run number read is
   * the one that job was queued under.
   */
  async find(eventId: string): Promise<StoredEvent | null> {
    const rows: StoredRow[] = await this.db.query(
      `SELECT id, integration_id, event_type, body, status, resend_count FROM webhooks.events WHERE id = $1 FOR SHARE`,
      [eventId],
    );
    return rows.length === 0 ? null : toStored(rows[0]);
  }

  /**
   * Numbers the attempt (per event, across resends), logs it and moves the event's state, in one
   * statement; returns the attempt number and the event's state afterwards. A hold (`a.hold`) follows
   * the held rule (see ENDPOINT_FOR_HOLD): when the endpoint is enabled by now, `a.nextStatus` is
   * written instead. An attempt of a run that is no longer the event's latest (`a.run`) is logged but
   * leaves the state to the newer run.
   */
  async recordAttempt(a: AttemptRecord): Promise<{ attemptNumber: number; status: EventStatus }> {
    const rows = await queryRows<{ attempt_number: number; status: EventStatus }>(
      this.db,
      `WITH ep AS (${ENDPOINT_FOR_HOLD('$12', '$13::boolean')}),
       s AS (SELECT CASE WHEN $13::boolean AND ${HOLDABLE} THEN 'held' ELSE $11::text END AS status),
       n AS (
         UPDATE webhooks.events e
            SET attempt_count = e.attempt_count + 1,
                last_attempt_at = $5,
                status = CASE WHEN e.resend_count = $15 THEN s.status ELSE e.status END,
                delivered_at = CASE WHEN e.resend_count = $15 AND s.status = 'delivered' THEN $5 ELSE e.delivered_at END,
                failed_at = CASE WHEN e.resend_count = $15 AND s.status = 'failed' THEN $5 ELSE e.failed_at END,
                updated_at = now()
           FROM s
          WHERE e.id = $1
          RETURNING e.attempt_count, e.status),
       ins AS (
         INSERT INTO webhooks.attempts (event_id, attempt_number, job_id, url, attempted_at, signed_at, status_code, error, error_code, latency_ms, response_excerpt, outcome)
         SELECT $1, n.attempt_count, $2, $3, $5, $4, $6, $7, $14, $8, $9, $10 FROM n
         RETURNING attempt_number)
       SELECT ins.attempt_number, n.status FROM ins, n`,
      [
        a.eventId,
        a.jobId,
        a.url,
        a.signedAt,
        a.attemptedAt,
        a.statusCode ?? null,
        a.error ?? null,
        a.latencyMs,
        a.excerpt ?? null,
        a.success ? 'success' : 'failure',
        a.nextStatus,
        a.integrationId,
        a.hold,
        a.errorCode ?? null,
        a.run,
      ],
    );
    return { attemptNumber: rows[0].attempt_number, status: rows[0].status };
  }

  /**
   * Marks an event for one more delivery run and returns the run number (it names the resend job),
   * with what `undoResend` needs if the job cannot be queued. Whatever its state: the break-glass
   * resend of the `ops` key (a run still going on is superseded, see DeliveryService).
   */
  async beginResend(eventId: string): Promise<ResendClaim> {
    const rows = await queryRows<{ resend_count: number; attempt_count: number; previous_status: EventStatus }>(
      this.db,
      `UPDATE webhooks.events e
          SET resend_count = e.resend_count + 1, status = 'pending', updated_at = now()
         FROM (SELECT id, status FROM webhooks.events WHERE id = $1 FOR UPDATE) old
        WHERE e.id = old.id
        RETURNING e.resend_count, e.attempt_count, old.status AS previous_status`,
      [eventId],
    );
    if (rows.length === 0) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
    const r = rows[0];
    return { eventId, run: r.resend_count, previousStatus: r.previous_status, attemptCount: r.attempt_count };
  }

  /**
   * One more delivery run, only if the event is still in one of `from` (failed, held): the recovery
   * of a window and the replay of a re-enabled endpoint. Of two callers selecting the same event
   * (two operators recovering one window, a recovery beside an enable), the row lock lets one claim
   * it; the other finds it pending and gets null, queueing nothing.
   */
  async beginReplay(eventId: string, from: EventStatus[]): Promise<ResendClaim | null> {
    const rows = await queryRows<{ resend_count: number; attempt_count: number; previous_status: EventStatus }>(
      this.db,
      `UPDATE webhooks.events e
          SET resend_count = e.resend_count + 1, status = 'pending', updated_at = now()
         FROM (SELECT id, status FROM webhooks.events WHERE id = $1 FOR UPDATE) old
        WHERE e.id = old.id AND old.status = ANY($2::text[])
        RETURNING e.resend_count, e.attempt_count, old.status AS previous_status`,
      [eventId, from],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return { eventId, run: r.resend_count, previousStatus: r.previous_status, attemptCount: r.attempt_count };
  }

  /**
   * The resend's job could not be queued: puts the event back in the state it had, so that the
   * window resend or the replay of a re-enabled endpoint selects it again. Only while nothing has
   * touched it since (no later run, no attempt): a job that reached Redis after all and already ran
   * keeps what it recorded. The run number stays used, so a late job never shares its id.
   */
  async undoResend(claim: ResendClaim): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `UPDATE webhooks.events SET status = $2, updated_at = now()
        WHERE id = $1 AND status = 'pending' AND resend_count = $3 AND attempt_count = $4
        RETURNING id`,
      [claim.eventId, claim.previousStatus, claim.run, claim.attemptCount],
    );
    return rows.length > 0;
  }

  /**
   * BullMQ gave up on run `run` of the event's job outside a recorded attempt (an unexpected error, a
   * job that stalled too often): the event becomes failed, so the window resend selects it, but only
   * while it is still pending under that same run (compare-and-set on resend_count, as claimStale): an
   * old run giving up never fails the event under a newer, live run. `unrecorded` is the event as the
   * job carries it (first run only): when the event never made it into the table (its ingest failed on
   * every attempt) it is recorded here, failed, instead of being lost.
   * - 'failed': this call marked it failed; 'recorded': this call inserted it failed;
   * - 'moved_on': it exists but is no longer pending under that run (delivered, failed, held, resent);
   * - 'missing': not in the table and nothing to record it from.
   */
  async markGivenUp(
    eventId: string,
    run: number,
    unrecorded?: { integrationId: string; eventType: string; body: string; createdAt: string },
  ): Promise<'failed' | 'recorded' | 'moved_on' | 'missing'> {
    if (unrecorded) {
      const rows = await queryRows<{ inserted: boolean }>(
        this.db,
        `INSERT INTO webhooks.events AS e (id, integration_id, event_type, body, created_at, status, failed_at)
         VALUES ($1, $3, $4, $5, $6, 'failed', now())
         ON CONFLICT (id) DO UPDATE SET status = 'failed', failed_at = now(), updated_at = now()
          WHERE e.status = 'pending' AND e.resend_count = $2
         RETURNING (xmax = 0) AS inserted`,
        [eventId, run, unrecorded.integrationId, unrecorded.eventType, unrecorded.body, unrecorded.createdAt],
      );
      // No row back: the event exists (the conflict) but is not pending under this run.
      if (rows.length === 0) return 'moved_on';
      return rows[0].inserted ? 'recorded' : 'failed';
    }
    const rows = await queryRows<{ marked: number; known: boolean }>(
      this.db,
      `WITH upd AS (
         UPDATE webhooks.events SET status = 'failed', failed_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'pending' AND resend_count = $2
          RETURNING id)
       SELECT (SELECT count(*) FROM upd)::int AS marked, EXISTS (SELECT 1 FROM webhooks.events WHERE id = $1) AS known`,
      [eventId, run],
    );
    if (rows[0].marked > 0) return 'failed';
    return rows[0].known ? 'moved_on' : 'missing';
  }

  /**
   * Holds an event whose endpoint is missing or disabled, in one statement that re-reads the endpoint
   * under a share lock: an enable committed meanwhile (after the attempt read the endpoint) is seen,
   * and an enable not yet committed waits for this write, so its replay finds the event held. Returns
   * false, writing nothing, when the endpoint is enabled by now (the caller delivers instead).
   */
  async holdWhileUnreachable(eventId: string, integrationId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `WITH ep AS (${ENDPOINT_FOR_HOLD('$2')})
       UPDATE webhooks.events SET status = 'held', updated_at = now()
        WHERE id = $1 AND ${HOLDABLE}
        RETURNING id`,
      [eventId, integrationId],
    );
    return rows.length > 0;
  }

  /**
   * Events 'pending' without any change for `ageMs`, in (updated_at, id) order after `after` (the
   * `cursor` of the last row of the previous page), with their latest run.
   */
  async stalePending(ageMs: number, limit: number, after?: string): Promise<{ id: string; run: number; cursor: string }[]> {
    const rows = await queryRows<{ id: string; resend_count: number; at: string }>(
      this.db,
      `SELECT id, resend_count, updated_at::text AS at FROM webhooks.events
        WHERE status = 'pending' AND updated_at < now() - $1::bigint * interval '1 millisecond'
          AND ($3::text IS NULL OR (updated_at, id) > (split_part($3, '|', 1)::timestamptz, split_part($3, '|', 2)::uuid))
        ORDER BY updated_at, id LIMIT $2`,
      [ageMs, limit, after ?? null],
    );
    return rows.map((r) => ({ id: r.id, run: r.resend_count, cursor: `${r.at}|${r.id}` }));
  }

  /**
   * Claims a stale pending event for one more run, only if it is still exactly as the sweep saw it
   * (same run, still stale): of two sweeps racing, one gets the run number and the other nothing.
   */
  async claimStale(eventId: string, run: number, ageMs: number): Promise<number | null> {
    const rows = await queryRows<{ resend_count: number }>(
      this.db,
      `UPDATE webhooks.events SET resend_count = resend_count + 1, updated_at = now()
        WHERE id = $1 AND status = 'pending' AND resend_count = $2
          AND updated_at < now() - $3::bigint * interval '1 millisecond'
        RETURNING resend_count`,
      [eventId, run, ageMs],
    );
    return rows.length === 0 ? null : rows[0].resend_count;
  }

  async view(eventId: string): Promise<EventView> {
    const rows: EventRow[] = await this.db.query(
      `SELECT id, integration_id, event_type, status, attempt_count, resend_count, created_at, received_at, last_attempt_at, delivered_at, failed_at
         FROM webhooks.events WHERE id = $1`,
      [eventId],
    );
    if (rows.length === 0) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
    const r = rows[0];
    return {
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
    };
  }

  async attempts(eventId: string): Promise<AttemptView[]> {
    await this.view(eventId);
    const rows: {
      attempt_number: number;
      job_id: string;
      url: string;
      attempted_at: Date;
      signed_at: string;
      status_code: number | null;
      error: string | null;
      error_code: AttemptErrorCode | null;
      latency_ms: number;
      response_excerpt: string | null;
      outcome: 'success' | 'failure';
    }[] = await this.db.query(
      `SELECT attempt_number, job_id, url, attempted_at, signed_at, status_code, error, error_code, latency_ms, response_excerpt, outcome
         FROM webhooks.attempts WHERE event_id = $1 ORDER BY attempt_number`,
      [eventId],
    );
    return rows.map((r) => ({
      attemptNumber: r.attempt_number,
      jobId: r.job_id,
      url: r.url,
      attemptedAt: r.attempted_at.toISOString(),
      signedAt: Number(r.signed_at),
      statusCode: r.status_code,
      error: r.error,
      errorCode: r.error_code,
      latencyMs: r.latency_ms,
      responseExcerpt: r.response_excerpt,
      outcome: r.outcome,
    }));
  }

  /**
   * Events in one of `statuses` (failed after all attempts, held), optionally of one integration and
   * received in [from, to), in (received_at, id) order after the event `after` when given; `limit` at
   * most. The window resend and the replay of held events both page through it. `afterFound` is false
   * when `after` names no event (the page is then empty).
   */
  async undeliveredPage(
    filter: { statuses: EventStatus[]; integrationId?: string; from?: Date; to?: Date; after?: string },
    limit: number,
  ): Promise<{ ids: string[]; afterFound: boolean }> {
    // The cursor row is looked up once, and whether it exists comes back with the page.
    const rows = await queryRows<{ ids: string[]; after_found: boolean }>(
      this.db,
      `WITH c AS (SELECT received_at, id FROM webhooks.events WHERE id = $6::uuid),
            page AS (
              SELECT e.id, e.received_at FROM webhooks.events e
               WHERE e.status = ANY($1::text[])
                 AND ($2::uuid IS NULL OR e.integration_id = $2)
                 AND ($3::timestamptz IS NULL OR e.received_at >= $3) AND ($4::timestamptz IS NULL OR e.received_at < $4)
                 AND ($6::uuid IS NULL OR (e.received_at, e.id) > (SELECT c.received_at, c.id FROM c))
               ORDER BY e.received_at, e.id LIMIT $5)
       SELECT coalesce((SELECT array_agg(id ORDER BY received_at, id) FROM page), '{}') AS ids,
              ($6::uuid IS NULL OR EXISTS (SELECT 1 FROM c)) AS after_found`,
      [filter.statuses, filter.integrationId ?? null, filter.from ?? null, filter.to ?? null, limit, filter.after ?? null],
    );
    return { ids: rows[0].ids, afterFound: rows[0].after_found };
  }
}
