import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type Observable, from, switchMap } from 'rxjs';
import type { AuthUser } from '../access/permissions';
import { StaffAuditRecorder } from './staff-audit.recorder';

/**
 * Writes the `started` record of a staff write before it runs. An interceptor runs after every
 * guard (so the access guard has named the caller) and before the pipes and the handler; if the
 * record cannot be written, the request fails with 503 AUDIT_TRAIL_UNAVAILABLE and nothing runs.
 */
@Injectable()
export class StaffAuditStartInterceptor implements NestInterceptor {
  constructor(private readonly recorder: StaffAuditRecorder) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthUser }>();
    // customers' requests (the money path) and every read go straight through: no promise, no operator
    if (!this.recorder.needsStart(req)) return next.handle();
    return from(this.recorder.start(req)).pipe(switchMap(() => next.handle()));
  }
}
