import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SmsOutbox } from '../notifications/sms-outbox.service';
import type { OutboxSms, PaymentNotifierPort } from './payment-notifier.port';

/**
 * PAYMENT_NOTIFIER on the notification module's SMS outbox: rows written in the caller's
 * transaction, delivered by its relay with retries; a repeated dedupe key is a no-op.
 */
@Injectable()
export class SmsOutboxNotifier implements PaymentNotifierPort {
  constructor(private readonly outbox: SmsOutbox) {}

  async enqueue(m: EntityManager, messages: OutboxSms[]): Promise<void> {
    await this.outbox.enqueueAll(
      messages.map((sms) => ({ dedupeKey: sms.dedupeKey, to: sms.to, text: sms.body.slice(0, 640) })),
      m,
    );
  }
}
