import { Inject, Injectable } from '@nestjs/common';
import { CONFIG } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { SmsSender } from './sms-sender';

/**
 * The SMS provider's HTTP API: `POST SMS_PROVIDER_URL { to, text }` with a bearer token, and the
 * message's id as `Idempotency-Key`: a try repeated after a crash (the provider had accepted it, the
 * outbox had not yet recorded that) carries the key of the first, so a provider that honours the
 * header sends the message once.
 */
@Injectable()
export class HttpSmsSender extends SmsSender {
  constructor(@Inject(CONFIG) private readonly config: OrchestratorConfig) {
    super();
  }

  async send(to: string, text: string, messageId?: string): Promise<void> {
    if (!this.config.SMS_PROVIDER_URL) throw new Error('SMS_PROVIDER_URL is not set');
    const res = await fetch(this.config.SMS_PROVIDER_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.config.SMS_PROVIDER_TOKEN ? { authorization: `Bearer ${this.config.SMS_PROVIDER_TOKEN}` } : {}),
        ...(messageId ? { 'idempotency-key': messageId } : {}),
      },
      body: JSON.stringify({ to, text }),
      signal: AbortSignal.timeout(this.config.SMS_PROVIDER_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`SMS provider answered ${res.status}`);
  }
}
