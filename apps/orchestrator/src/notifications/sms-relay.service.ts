import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ALWAYS_LEADER, CONFIG, JOB_LEASE, type JobLease, PeriodicJob, queryRows, requestContext } from '@mm/platform';
import { randomUUID } from 'node:crypto';
import { maskPhone } from '../common/validators';
import type { OrchestratorConfig } from '../orchestrator.config';
import { SmsSender } from './sms-sender';

interface DueRow {
  id: string;
  to_phone: string;
  body: string;
  attempts: number;
  correlation_id: string | null;
}

const BATCH = 20;
/**
 * Sends in flight at once within a batch. One at a time, the provider's round trip alone caps the
 * relay at 1/latency messages a second (5/s at 200 ms), below the two SMS per payment written at
 * load; a few at once lift that without flooding the provider.
 */
const SEND_CONCURRENCY = 4;
const BASE_BACKOFF_SEC = 5;

/**
 * Sends pending outbox rows every SMS_RELAY_POLL_MS on the replica leading `orchestrator.sms-relay`
 * (`relayOnce` may run anywhere: rows are claimed with SKIP LOCKED, so passes never share a row).
 * A pass drains what is due, a batch of BATCH rows after another: it sends a batch's rows, marks
 * those the provider accepted sent in one statement after the batch, and schedules a retry with
 * doubling backoff for each refused one until SMS_MAX_ATTEMPTS, then marks it failed.
 * At-least-once: a crash after the provider accepted a message and before its batch was marked
 * (the whole batch is marked at its end, so this covers every message sent earlier in the batch)
 * sends those messages again once their lease ends, with the row's id as the idempotency key both
 * times (HttpSmsSender), so a provider that honours the key sends each once.
 */
@Injectable()
export class SmsRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SmsRelay.name);
  private readonly job = new PeriodicJob(
    'orchestrator.sms-relay',
    () => this.relayOnce(),
    (error: unknown) => this.logger.error({ msg: 'SMS relay pass failed', err: error }),
  );
  /** Set at shutdown: a pass finishes the batch it holds and claims no other. */
  private stopping = false;

  constructor(
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
    private readonly db: DataSource,
    private readonly sender: SmsSender,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.SMS_RELAY_POLL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    // PeriodicJob.stop waits for the pass in progress: without this flag a pass draining a large
    // backlog would hold the shutdown until the backlog was gone.
    this.stopping = true;
    return this.job.stop();
  }

  /**
   * One pass; answers how many messages the provider accepted. Claims batches until one comes back
   * short (nothing more is due), one had no message accepted (the provider is failing: the next
   * poll tries again rather than spending an attempt of every due row now) or the process is
   * stopping. The PeriodicJob skips its slots while a pass runs, so a long drain never overlaps
   * another pass of this process.
   */
  async relayOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const { claimed, sent } = await this.relayBatch();
      total += sent;
      if (claimed < BATCH || sent === 0 || this.stopping) return total;
    }
  }

  /**
   * Rows are leased (their next attempt pushed past the time the batch's sends may take, even one
   * at a time) in one short statement, then sent outside any transaction: a slow provider never
   * holds a database transaction open, and a row whose sender died is picked up again when its
   * lease ends.
   */
  private async relayBatch(): Promise<{ claimed: number; sent: number }> {
    const leaseSec = Math.ceil(this.config.SMS_PROVIDER_TIMEOUT_MS / 1000) * BATCH + 30;
    const due = await queryRows<DueRow>(
      this.db,
      `UPDATE orchestrator.sms_outbox SET next_attempt_at = now() + make_interval(secs => $2)
        WHERE id IN (SELECT id FROM orchestrator.sms_outbox WHERE status = 'pending' AND next_attempt_at <= now()
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, to_phone, body, attempts, correlation_id`,
      [BATCH, leaseSec],
    );
    const accepted: string[] = [];
    let next = 0;
    // Each worker takes the next row not yet taken; a row's send and its failure handling run in
    // that row's own request context, so its log lines carry its correlation id.
    const worker = async (): Promise<void> => {
      while (next < due.length) {
        const row = due[next++];
        const context = { requestId: randomUUID(), correlationId: row.correlation_id ?? randomUUID() };
        if (await requestContext.run(context, () => this.sendOne(row))) accepted.push(row.id);
      }
    };
    // Settled, not Promise.all: a worker whose retry write threw must not leave the messages the
    // others had sent unmarked (they would go out again when their lease ends).
    const workers = await Promise.allSettled(Array.from({ length: Math.min(SEND_CONCURRENCY, due.length) }, worker));
    if (accepted.length > 0) {
      await queryRows(
        this.db,
        `UPDATE orchestrator.sms_outbox SET status = 'sent', attempts = attempts + 1, sent_at = now()
          WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
        [accepted],
      );
    }
    const broken = workers.find((w) => w.status === 'rejected');
    if (broken) throw broken.reason;
    return { claimed: due.length, sent: accepted.length };
  }

  /** Sends one row; true when the provider accepted it, else its retry (or its end) is recorded. */
  private async sendOne(row: DueRow): Promise<boolean> {
    try {
      await this.sender.send(row.to_phone, row.body, row.id);
      return true;
    } catch (error) {
      const attempts = row.attempts + 1;
      const failed = attempts >= this.config.SMS_MAX_ATTEMPTS;
      await queryRows(
        this.db,
        `UPDATE orchestrator.sms_outbox SET attempts = $2, status = CASE WHEN $3 THEN 'failed' ELSE status END, last_error = $4,
           next_attempt_at = now() + make_interval(secs => $5) WHERE id = $1 AND status = 'pending'`,
        [row.id, attempts, failed, String((error as Error)?.message ?? error).slice(0, 500), BASE_BACKOFF_SEC * 2 ** (attempts - 1)],
      );
      const log = { msg: failed ? 'SMS given up' : 'SMS send failed; will retry', to: maskPhone(row.to_phone), attempts, err: error };
      if (failed) this.logger.error(log);
      else this.logger.warn(log);
      return false;
    }
  }
}
