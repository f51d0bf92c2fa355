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
const BASE_BACKOFF_SEC = 5;

/**
 * Sends pending outbox rows every SMS_RELAY_POLL_MS on the replica leading `orchestrator.sms-relay`
 * (`relayOnce` may run anywhere: rows are claimed with SKIP LOCKED, so passes never share a row),
 * sends each, marks it sent, or schedules a retry with doubling backoff until SMS_MAX_ATTEMPTS,
 * then marks it failed. At-least-once: a crash after the provider accepted and before the row was
 * marked sends that message again, with the row's id as its idempotency key both times (HttpSmsSender).
 */
@Injectable()
export class SmsRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SmsRelay.name);
  private readonly job = new PeriodicJob(
    'orchestrator.sms-relay',
    () => this.relayOnce(),
    (error: unknown) => this.logger.error({ msg: 'SMS relay pass failed', err: error }),
  );

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
    return this.job.stop();
  }

  /**
   * One pass; answers how many messages were sent. Rows are leased (their next attempt pushed past
   * the send timeout) in one short statement, then sent outside any transaction: a slow provider
   * never holds a database transaction open, and a row whose sender died is picked up again when
   * its lease ends.
   */
  async relayOnce(): Promise<number> {
    const leaseSec = Math.ceil(this.config.SMS_PROVIDER_TIMEOUT_MS / 1000) * BATCH + 30;
    const due = await queryRows<DueRow>(
      this.db,
      `UPDATE orchestrator.sms_outbox SET next_attempt_at = now() + make_interval(secs => $2)
        WHERE id IN (SELECT id FROM orchestrator.sms_outbox WHERE status = 'pending' AND next_attempt_at <= now()
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, to_phone, body, attempts, correlation_id`,
      [BATCH, leaseSec],
    );
    let sent = 0;
    for (const row of due) {
      const context = { requestId: randomUUID(), correlationId: row.correlation_id ?? randomUUID() };
      await requestContext.run(context, async () => {
        try {
          await this.sender.send(row.to_phone, row.body, row.id);
          await queryRows(
            this.db,
            `UPDATE orchestrator.sms_outbox SET status = 'sent', attempts = attempts + 1, sent_at = now() WHERE id = $1 AND status = 'pending'`,
            [row.id],
          );
          sent++;
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
        }
      });
    }
    return sent;
  }
}
