import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata, UseGuards, applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { AuthConfig } from '../auth.config';
import { addressBucket, clientIp } from '../common/client-ip';
import { E164 } from '../common/phone';
import { AuthSecrets } from '../crypto/auth-secrets';
import { type Bucket, RateLimiter } from './rate-limiter.service';

/**
 * The routes that take a phone and a secret (or send a secret to a phone), grouped by what an
 * abuser would be after: guessing PINs (LOGIN), sending SMS at our cost or flooding a phone
 * (OTP_SEND), guessing codes (OTP_VERIFY). PIN-reset routes count with the OTP routes: for a given
 * phone, a code is a code whatever its purpose.
 */
export type RateLimitPolicy = 'LOGIN' | 'OTP_SEND' | 'OTP_VERIFY';

interface PolicyLimits {
  perPhone: number;
  perIp: number;
  windowMs: number;
}

const POLICY = Symbol('auth-rate-limit-policy');

/** Limits a route per phone (the body's `phone`) and per client address; 429 RATE_LIMITED with Retry-After. */
export function RateLimit(policy: RateLimitPolicy): MethodDecorator {
  return applyDecorators(SetMetadata(POLICY, policy), UseGuards(RateLimitGuard));
}

/**
 * A guard, so it runs before validation and the route's work: a flood of malformed or wrong
 * attempts is counted and refused before it costs a PIN hash or a database row. A body without a
 * well-formed phone is counted per address only (validation refuses it right after).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limits: Record<RateLimitPolicy, PolicyLimits>;

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    private readonly secrets: AuthSecrets,
  ) {
    this.limits = {
      LOGIN: { perPhone: config.LOGIN_LIMIT_PER_PHONE, perIp: config.LOGIN_LIMIT_PER_IP, windowMs: config.LOGIN_LIMIT_WINDOW_SEC * 1000 },
      OTP_SEND: {
        perPhone: config.OTP_SEND_LIMIT_PER_PHONE,
        perIp: config.OTP_SEND_LIMIT_PER_IP,
        windowMs: config.OTP_SEND_LIMIT_WINDOW_SEC * 1000,
      },
      OTP_VERIFY: {
        perPhone: config.OTP_VERIFY_LIMIT_PER_PHONE,
        perIp: config.OTP_VERIFY_LIMIT_PER_IP,
        windowMs: config.OTP_VERIFY_LIMIT_WINDOW_SEC * 1000,
      },
    };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.get<RateLimitPolicy | undefined>(POLICY, context.getHandler());
    if (!policy) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { perPhone, perIp, windowMs } = this.limits[policy];
    const address = addressBucket(clientIp(request, this.config.TRUST_FORWARDED_FOR));
    const buckets: Bucket[] = [{ key: `auth:rl:${policy}:ip:${address}`, limit: perIp, windowMs, dimension: 'ip' }];
    const phone = (request.body as { phone?: unknown } | undefined)?.phone;
    if (typeof phone === 'string' && E164.test(phone)) {
      // Phones never appear in Redis keys in clear.
      buckets.push({
        key: `auth:rl:${policy}:phone:${this.secrets.phoneTag('rate-limit', phone)}`,
        limit: perPhone,
        windowMs,
        dimension: 'phone',
      });
    }
    const decision = await this.limiter.consume(policy, buckets);
    if (decision.allowed) return true;
    const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    // The message does not say which limit was hit: no hint to tune an attack with.
    throw new AppException('RATE_LIMITED', `Too many attempts; retry in ${retryAfter} seconds`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}
