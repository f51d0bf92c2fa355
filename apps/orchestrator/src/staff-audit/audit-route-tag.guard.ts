import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AUDIT_TARGET, AUDITED_READ, type AuditedReadSpec } from './audit-metadata';

/** What the audit trail needs to know about the route a request reached. */
export interface AuditRouteTag {
  /** `<controller>.<handler>` (`auditTrail.verify`) */
  name: string;
  /** set on a GET route marked `@AuditedRead` */
  read?: AuditedReadSpec;
  /** `@AuditTarget` of a write */
  target?: AuditedReadSpec;
}

const tags = new WeakMap<object, AuditRouteTag>();

/** The tag the guard left on this request; none when no Nest route handled it (a 404, a proxied path). */
export function auditRouteTagOf(request: object): AuditRouteTag | undefined {
  return tags.get(request);
}

export function handlerName(controller: string, handler: string): string {
  const base = controller.replace(/Controller$/, '');
  return `${base.charAt(0).toLowerCase()}${base.slice(1)}.${handler}`;
}

/**
 * A global guard that never refuses: it runs BEFORE the access guard (its module is imported
 * first) and tags the request with its route's name and audit markers, so that the trail knows
 * them even when the access guard then refuses the request (a 403 is recorded like any outcome).
 */
@Injectable()
export class AuditRouteTagger implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const handler = context.getHandler();
    tags.set(context.switchToHttp().getRequest<object>(), {
      name: handlerName(context.getClass().name, handler.name),
      read: this.reflector.get<AuditedReadSpec | undefined>(AUDITED_READ, handler),
      target: this.reflector.get<AuditedReadSpec | undefined>(AUDIT_TARGET, handler),
    });
    return true;
  }
}
