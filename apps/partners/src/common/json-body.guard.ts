import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';

/**
 * The partner API speaks JSON only (docs/partners.md "1. The shape of an integration"). Fastify would
 * also parse form and plain-text bodies; a request carrying one is refused with 415 instead of
 * being judged field by field as if it were JSON.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const type = request.headers['content-type'];
    const hasBody = request.body !== undefined && request.body !== null && type !== undefined;
    if (hasBody && !/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppException('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
    }
    return true;
  }
}
