import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import { maskPhone } from '../common/phone';
import { SmsSender } from './sms-sender';

/**
 * Production driver: `POST SMS_PROVIDER_URL` with `{ to, text }` (JSON) and, if configured,
 * `Authorization: Bearer SMS_PROVIDER_TOKEN`. Any 2xx is accepted; anything else, or no answer
 * within SMS_PROVIDER_TIMEOUT_MS, is UPSTREAM_UNAVAILABLE. OtpService never lets that reach the
 * caller (a failure for accounts only would tell who has one): it logs and counts it, and the
 * stored code stays valid.
 */
@Injectable()
export class HttpSmsSender extends SmsSender {
  private readonly logger = new Logger(HttpSmsSender.name);

  constructor(@Inject(AuthConfig) private readonly config: AuthConfig) {
    super();
  }

  async send(to: string, text: string): Promise<void> {
    const url = this.config.SMS_PROVIDER_URL;
    if (!url) throw new AppException('UPSTREAM_UNAVAILABLE', 'SMS provider is not configured');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.SMS_PROVIDER_TOKEN) headers.authorization = `Bearer ${this.config.SMS_PROVIDER_TOKEN}`;
    const ctx = currentContext();
    if (ctx) headers['x-correlation-id'] = ctx.correlationId;
    let status: number;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ to, text }),
        signal: AbortSignal.timeout(this.config.SMS_PROVIDER_TIMEOUT_MS),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      this.logger.warn({
        msg: 'SMS provider unreachable',
        to: maskPhone(to),
        err: { name: (error as Error).name, message: (error as Error).message },
      });
      throw new AppException('UPSTREAM_UNAVAILABLE', 'SMS provider is unavailable');
    }
    if (status < 200 || status >= 300) {
      this.logger.warn({ msg: 'SMS provider refused the message', to: maskPhone(to), status });
      throw new AppException('UPSTREAM_UNAVAILABLE', 'SMS provider is unavailable');
    }
  }
}
