import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STAFF_ROLES } from '@mm/contracts';
import { ERROR_CATALOG } from '@mm/errors';
import { bearerToken } from '../access/access.guard';
import { AccessTokens } from '../access/access-tokens.service';
import type { AuthUser } from '../access/permissions';
import { primaryRole } from '../access/role-matrix';
import { buildEntry, isAudited } from './audit-record';
import { auditRouteTagOf } from './audit-route-tag.guard';
import { StaffAuditStore } from './staff-audit.store';

const STAFF: ReadonlySet<string> = new Set(STAFF_ROLES);

/**
 * Writes the staff audit trail: a Fastify `onSend` hook, so it sees every outcome of the
 * orchestrator's own routes (the handler's answer, a validation refusal, the access guard's 403)
 * once its status and body are known, and before anything is sent.
 *
 * Recorded: requests by a staff role (SUPPORT, COMPLIANCE, ADMIN, AUDITOR) that are writes (any
 * method but GET, HEAD and OPTIONS) or reads of a route marked `@AuditedRead`. Customers,
 * merchants, agents and services are not recorded here; neither are requests no Nest route took
 * (an unknown path, a body that is not JSON, the proxied `/api/auth/*` and `/api/partners-public/*`).
 *
 * The record is written before the answer leaves. If it cannot be written, the answer is withheld
 * and replaced by 503 AUDIT_TRAIL_UNAVAILABLE (the record goes to the error log instead): a read of
 * a person's data is then never disclosed unrecorded, and a write never looks like a silent
 * success. A write may still have taken effect; the 503's message says with what status it was
 * answered, so the operator checks before retrying.
 */
@Injectable()
export class StaffAuditRecorder implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly store: StaffAuditStore,
    private readonly tokens: AccessTokens,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', (req, reply, payload) => this.record(req, reply, payload));
  }

  private async record(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const route = req.routeOptions.url;
    const tag = auditRouteTagOf(req);
    if (!route || !tag || !isAudited(req.method, tag)) return payload;
    const actor = await this.actorOf(req, reply.statusCode);
    if (!actor) return payload;
    const entry = buildEntry(actor, {
      method: req.method,
      route,
      params: req.params,
      query: req.query,
      body: req.body,
      requestId: String(req.id),
      status: reply.statusCode,
      payload,
      tag,
    });
    try {
      await this.store.append(entry);
      return payload;
    } catch (err) {
      req.log.error({ err, audit: entry }, 'staff audit record not written: answer withheld');
      reply.code(503).header('content-type', 'application/json; charset=utf-8');
      reply.removeHeader('location');
      return JSON.stringify({
        code: 'AUDIT_TRAIL_UNAVAILABLE',
        message: `${ERROR_CATALOG.AUDIT_TRAIL_UNAVAILABLE.message} (this request was answered ${entry.outcomeStatus}${entry.outcomeCode ? ` ${entry.outcomeCode}` : ''})`,
        requestId: String(req.id),
      });
    }
  }

  /**
   * The staff member behind the request: the access guard's user, or, when the guard refused the
   * permission (403) before naming one, the holder of the token it verified (cached, so no second
   * call to auth). Anyone else (a customer, no token, a revoked one) is not recorded.
   */
  private async actorOf(req: FastifyRequest, status: number): Promise<{ userId: string; role: string } | null> {
    const user = (req as FastifyRequest & { user?: AuthUser }).user;
    if (user) return STAFF.has(user.role) ? { userId: user.userId, role: user.role } : null;
    const token = status === 403 ? bearerToken(req) : undefined;
    if (!token) return null;
    try {
      const session = await this.tokens.verify(token);
      const role = primaryRole(session.roles);
      return role && STAFF.has(role) ? { userId: session.userId, role } : null;
    } catch {
      return null;
    }
  }
}
