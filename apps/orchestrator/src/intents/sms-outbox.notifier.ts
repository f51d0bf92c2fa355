import { Injectable } from '@nestjs/common';
import type { SqlWrite } from '@mm/platform';
import { SmsOutbox } from '../notifications/sms-outbox.service';
import type { OutboxSms, PaymentNotifierPort } from './payment-notifier.port';

/**
 * PAYMENT_NOTIFIER on the notification module's SMS outbox: rows written by the caller's statement,
 * delivered by its relay with retries; a repeated dedupe key is a no-op.
 */
@Injectable()
export class SmsOutboxNotifier implements PaymentNotifierPort {
  constructor(private readonly outbox: SmsOutbox) {}

  enqueueWrite(messages: OutboxSms[]): SqlWrite {
    return this.outbox.enqueueAllWrite(messages.map((sms) => ({ dedupeKey: sms.dedupeKey, to: sms.to, text: sms.body.slice(0, 640) })));
  }
}
