import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { ApiKeysService } from './api-keys.service';
import type { PartnerRequest } from './partner-principal';
import { RateLimiter } from './rate-limiter.service';

/**
 * Every public partner route: `Authorization: Bearer <API key>` (docs/partners.md "2. Keys, modes and authentication"), then
 * the per-key rate limit. Every answer to an authenticated request carries RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset (seconds); a refusal is 429 RATE_LIMITED with Retry-After.
 */
@Injectable()
export class PartnerAuthGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & PartnerRequest>();
    const reply = http.getResponse<FastifyReply>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/i.exec(header.trim()) : null;
    const partner = await this.keys.authenticate(match?.[1]);

    const decision = await this.limiter.hit(partner.keyId);
    const resetSec = Math.ceil(decision.resetMs / 1000);
    const headers = {
      'ratelimit-limit': String(decision.limit),
      'ratelimit-remaining': String(decision.remaining),
      'ratelimit-reset': String(resetSec),
    };
    if (!decision.allowed) {
      throw new AppException('RATE_LIMITED', `Rate limit of ${decision.limit} requests per window reached for this API key`, {
        headers: { ...headers, 'retry-after': String(Math.max(1, resetSec)) },
      });
    }
    void reply.headers(headers);
    request.partner = partner;
    return true;
  }
}
