import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppException } from '@mm/errors';
import { REDIS } from '@mm/platform';
import { AuthConfig } from '../auth.config';
import { AuthSecrets } from '../crypto/auth-secrets';

/**
 * Resend throttles of OTP sending, in Redis: one code per phone per OTP_RESEND_COOLDOWN_SEC, and
 * hourly caps per phone and per client IP (fixed one-hour windows from the first send).
 * Phones appear in keys only as a keyed digest.
 */
@Injectable()
export class OtpThrottle {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly secrets: AuthSecrets,
  ) {}

  /** Fails closed: without Redis no code is sent (SERVICE_UNAVAILABLE), since the throttles could not be enforced. */
  async acquire(phone: string, ip: string): Promise<void> {
    try {
      await this.check(phone, ip);
    } catch (error) {
      if (error instanceof AppException) throw error;
      throw new AppException('SERVICE_UNAVAILABLE', 'Codes cannot be sent right now; retry later');
    }
  }

  /** The phone's hourly cap alone (the staff enrolment code: OtpService.sendStaffEnrolment); fails closed like `acquire`. */
  async acquirePhoneHourly(phone: string): Promise<void> {
    try {
      await this.hourly(
        `auth:otp:hour:phone:${this.secrets.phoneTag('throttle', phone)}`,
        this.config.OTP_MAX_PER_PHONE_PER_HOUR,
        'this phone',
      );
    } catch (error) {
      if (error instanceof AppException) throw error;
      throw new AppException('SERVICE_UNAVAILABLE', 'Codes cannot be sent right now; retry later');
    }
  }

  private async check(phone: string, ip: string): Promise<void> {
    const phoneKey = this.secrets.phoneTag('throttle', phone);
    if (this.config.OTP_RESEND_COOLDOWN_SEC > 0) {
      const cooldown = `auth:otp:cooldown:${phoneKey}`;
      const set = await this.redis.set(cooldown, '1', 'EX', this.config.OTP_RESEND_COOLDOWN_SEC, 'NX');
      if (set === null) throw this.throttled(await this.redis.ttl(cooldown), 'A code was sent to this phone moments ago');
    }
    for (const [key, cap, what] of [
      [`auth:otp:hour:phone:${phoneKey}`, this.config.OTP_MAX_PER_PHONE_PER_HOUR, 'this phone'],
      [`auth:otp:hour:ip:${ip}`, this.config.OTP_MAX_PER_IP_PER_HOUR, 'this address'],
    ] as const)
      await this.hourly(key, cap, what);
  }

  private async hourly(key: string, cap: number, what: string): Promise<void> {
    const result = await this.redis.multi().incr(key).expire(key, 3600, 'NX').ttl(key).exec();
    const count = Number(result?.[0]?.[1] ?? 0);
    if (count > cap) throw this.throttled(Number(result?.[2]?.[1] ?? 3600), `Hourly code limit reached for ${what}`);
  }

  private throttled(ttlSec: number, why: string): AppException {
    const retryAfter = Math.max(1, ttlSec);
    return new AppException('OTP_THROTTLED', `${why}; retry in ${retryAfter} seconds`, { headers: { 'retry-after': String(retryAfter) } });
  }
}
