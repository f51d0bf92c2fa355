import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** When these routes were marked deprecated (RFC 9745 `Deprecation: @<epoch seconds>`). */
const DEPRECATED_SINCE = Math.floor(Date.UTC(2026, 10, 1) / 1000);

/** The orchestrator route replacing each deprecated one (docs/registration.md "Routes"). */
const SUCCESSORS: Record<string, string> = {
  '/auth/register': '/orchestrator/auth/register',
  '/auth/register/merchant': '/orchestrator/auth/register/merchant',
  '/auth/register/agent': '/orchestrator/auth/register/agent',
  '/auth/register/admin': '/orchestrator/auth/register/admin',
  '/auth/reset-pin/confirm': '/orchestrator/auth/reset-pin',
};

/**
 * Marks every answer of a deprecated route, errors included: a class-level guard runs before the
 * route's own guards (authentication) and pipes (validation), so even their refusals carry it.
 */
@Injectable()
export class DeprecationHeaders implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const path = http.getRequest<FastifyRequest>().url.split('?')[0];
    const reply = http.getResponse<FastifyReply>();
    reply.header('deprecation', `@${DEPRECATED_SINCE}`);
    const successor = SUCCESSORS[path];
    if (successor) reply.header('link', `<${successor}>; rel="successor-version"`);
    return true;
  }
}
