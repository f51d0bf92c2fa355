import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { WebhookQueue, resendJobId } from '../delivery/webhook-queue';
import type { EventStatus } from './event.types';
import { ReplayService } from './replay.service';

export interface ResendAnswer {
  eventId: string;
  jobId: string;
  /** the key had already started this run: nothing new was queued */
  repeated: boolean;
}

/** Thrown inside the claim's transaction to roll it back when another request took the key first. */
class KeyTaken extends Error {}

/** What the claim's transaction ends with: the job queued, or queued without Redis confirming it. */
type Queued = { jobId: string; unconfirmed?: AppException };

/**
 * A resend that a staff member may send twice (a double click, a retry after a lost answer) and
 * still get one delivery run. In one transaction: the key is recorded first (a second request with
 * the same key waits on it), the event's row is locked and a run claimed, and the run's job is
 * queued before the commit. So a key is only ever seen with a job Redis took (or may have taken):
 * - Redis certainly did not get the job (503 WEBHOOK_QUEUE_UNAVAILABLE): the transaction rolls
 *   back, key and claim alike, and the same request sent again does the work;
 * - Redis did not confirm it (503 WEBHOOK_QUEUE_UNCONFIRMED): the claim and key are committed (the
 *   pending sweep re-queues the run if its job never appears), so a retry answers that run;
 * - the event is still pending (its retries or another run are going on): 409 WEBHOOK_EVENT_PENDING,
 *   nothing changes: a second run beside a live one would deliver the event twice.
 * The job's worker reads the event under a share lock, so it waits for this commit (see find).
 */
@Injectable()
export class IdempotentResendService {
  private readonly logger = new Logger(IdempotentResendService.name);

  constructor(
    private readonly db: DataSource,
    private readonly queue: WebhookQueue,
    private readonly replay: ReplayService,
  ) {}

  async resend(eventId: string, idempotencyKey?: string): Promise<ResendAnswer> {
    if (!idempotencyKey) return { ...(await this.replay.resendOne(eventId)), repeated: false };
    const key = idempotencyKey.toLowerCase();
    for (;;) {
      const prior = await this.prior(key);
      if (prior) {
        if (prior.eventId !== eventId) throw new AppException('WEBHOOK_RESEND_KEY_REUSED');
        return { eventId, jobId: prior.jobId, repeated: true };
      }
      let queued: Queued;
      try {
        queued = await this.db.transaction((tx) => this.claimAndQueue(tx, eventId, key));
      } catch (error) {
        if (error instanceof KeyTaken) continue; // another request committed this key meanwhile: read what it did
        if (error instanceof AppException && error.code === 'WEBHOOK_QUEUE_UNAVAILABLE') {
          this.logger.warn({ msg: 'webhook resend not queued; nothing kept, the same request may be sent again', eventId });
        }
        throw error;
      }
      if (queued.unconfirmed) {
        this.logger.warn({
          msg: 'webhook resend not confirmed by Redis; the run stays claimed under its key',
          eventId,
          jobId: queued.jobId,
        });
        throw queued.unconfirmed;
      }
      this.logger.log({ msg: 'webhook event resent', eventId, jobId: queued.jobId });
      return { eventId, jobId: queued.jobId, repeated: false };
    }
  }

  private async claimAndQueue(tx: EntityManager, eventId: string, key: string): Promise<Queued> {
    // The event's row first: a request with the same key waits here until this transaction ends,
    // then finds the key taken (and answers this run) or, after a rollback, does the work itself.
    const event = await queryRows<{ status: EventStatus; resend_count: number }>(
      tx,
      `SELECT status, resend_count FROM webhooks.events WHERE id = $1 FOR UPDATE`,
      [eventId],
    );
    if (event.length === 0) throw new AppException('WEBHOOK_EVENT_NOT_FOUND');
    const run = event[0].resend_count + 1;
    const jobId = resendJobId(eventId, run);
    const inserted = await queryRows<{ ok: number }>(
      tx,
      `INSERT INTO webhooks.resend_requests (idempotency_key, event_id, job_id) VALUES ($1, $2, $3)
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1 AS ok`,
      [key, eventId, jobId],
    );
    if (inserted.length === 0) throw new KeyTaken();
    // A new key while a run is going on (its retries, another operator's resend or recovery): refused.
    if (event[0].status === 'pending') throw new AppException('WEBHOOK_EVENT_PENDING');
    await tx.query(`UPDATE webhooks.events SET resend_count = $2, status = 'pending', updated_at = now() WHERE id = $1`, [eventId, run]);
    try {
      await this.queue.resend(eventId, run);
    } catch (error) {
      // Unconfirmed: the job may run, so the claim is committed and the key answers it from now on.
      if (error instanceof AppException && error.code === 'WEBHOOK_QUEUE_UNCONFIRMED') return { jobId, unconfirmed: error };
      throw error;
    }
    return { jobId };
  }

  private async prior(key: string): Promise<{ eventId: string; jobId: string } | null> {
    const rows = await queryRows<{ event_id: string; job_id: string }>(
      this.db,
      `SELECT event_id, job_id FROM webhooks.resend_requests WHERE idempotency_key = $1`,
      [key],
    );
    return rows.length === 0 ? null : { eventId: rows[0].event_id, jobId: rows[0].job_id };
  }
}
