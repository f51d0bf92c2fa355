import { timingSafeEqual, createHash } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { type BaseConfig, CONFIG } from './config';

export const SERVICE_KEY_HEADER = 'x-service-key';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Internal routes: the caller must present the shared service credential (compared in constant time). */
@Injectable()
export class ServiceKeyGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(CONFIG) config: BaseConfig) {
    this.expected = digest(config.INTERNAL_SERVICE_KEY);
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers[SERVICE_KEY_HEADER];
    if (typeof header !== 'string' || !timingSafeEqual(digest(header), this.expected)) {
      throw new AppException('INVALID_SERVICE_CREDENTIALS');
    }
    return true;
  }
}
