import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type SqlWrite, currentContext, queryRows, runWrite } from '@mm/platform';

export interface OutgoingSms {
  /** a repeated enqueue with the same key is a no-op (a retried step, a replayed payment) */
  dedupeKey: string;
  to: string;
  /** at most 640 characters; never a secret (PIN, OTP, token) */
  text: string;
}

/**
 * The SMS outbox: a message is a row written in the same transaction as what it announces (pass
 * that transaction's manager), so it is sent if and only if that commits. The relay sends it with
 * retries. Reusable by every flow that notifies a user (registration, payments).
 */
@Injectable()
export class SmsOutbox {
  constructor(private readonly db: DataSource) {}

  async enqueue(sms: OutgoingSms, db: DataSource | EntityManager = this.db): Promise<void> {
    await runWrite(db, this.enqueueAllWrite([sms]));
  }

  /**
   * Several messages in one write (a payment's two SMS), to run alone or with others in one
   * statement (see runWritesTogether); each repeated dedupe key is a no-op.
   */
  enqueueAllWrite(list: OutgoingSms[]): SqlWrite {
    return {
      text: `INSERT INTO orchestrator.sms_outbox (id, dedupe_key, to_phone, body, correlation_id)
       SELECT m.id, m.dedupe_key, m.to_phone, m.body, $5 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS m(id, dedupe_key, to_phone, body)
       ON CONFLICT (dedupe_key) DO NOTHING`,
      params: [
        list.map(() => randomUUID()),
        list.map((m) => m.dedupeKey),
        list.map((m) => m.to),
        list.map((m) => m.text),
        currentContext()?.correlationId ?? null,
      ],
    };
  }

  /** Withdraws a message not sent yet (compensation). True when one was withdrawn. */
  async cancel(dedupeKey: string, db: DataSource | EntityManager = this.db): Promise<boolean> {
    const rows = await queryRows(
      db,
      `UPDATE orchestrator.sms_outbox SET status = 'cancelled' WHERE dedupe_key = $1 AND status = 'pending' RETURNING id`,
      [dedupeKey],
    );
    return rows.length > 0;
  }
}
