import { Injectable } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, MetadataScanner } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STAFF_ROLES } from '@mm/contracts';
import { AppException, ERROR_CATALOG } from '@mm/errors';
import { bearerToken } from '../access/access.guard';
import { AccessTokens } from '../access/access-tokens.service';
import type { AuthUser } from '../access/permissions';
import { primaryRole } from '../access/role-matrix';
import { type AuditedRequest, buildEntry, isAudited, isRead } from './audit-record';
import { type AuditRouteTag, auditRouteTagOf, tagControllerRoutes } from './audit-route-tag';
import { StaffAuditStore } from './staff-audit.store';

const STAFF: ReadonlySet<string> = new Set(STAFF_ROLES);
/** Auth's public routes, proxied by the gateway (gateway/gateway.ts). */
const AUTH_PROXY_PREFIX = '/api/auth/';

type Actor = { userId: string; role: string };
type StaffRequest = FastifyRequest & { user?: AuthUser };

/** Per request: the started record was written (with its actor), or writing it failed. */
const started = new WeakMap<object, { actor: Actor } | 'failed'>();

/**
 * Writes the staff audit trail, in two steps for a write:
 *
 * 1. `start`, before anything runs: for an orchestrator route, from the interceptor (after the
 *    access guard let a staff member through, before validation and the handler); for a request to
 *    auth proxied under `/api/auth`, from a `preHandler` hook, once the bearer token names a staff
 *    member. The `started` record names actor, action, target, reason and request id. If it cannot
 *    be written the request is refused with 503 AUDIT_TRAIL_UNAVAILABLE and nothing runs.
 * 2. `onSend`: the `outcome` record, with the same request id, once status and body are known.
 *
 * A read of a route marked `@AuditedRead` and a refusal by the access guard (the guard refuses
 * before any interceptor) have only the outcome record; if it cannot be written their answer is
 * withheld and replaced by the 503 (a person's data is never handed out unrecorded). The outcome of
 * a write that ran cannot be withdrawn any more: if it cannot be written, the answer goes out as it
 * is and the record goes to the error log; the started record already says who did what.
 *
 * Recorded: requests by a staff role (SUPPORT, COMPLIANCE, ADMIN, AUDITOR). Customers, merchants,
 * agents and services are not; neither are requests no route took (an unknown path, a body that
 * is not JSON) nor requests without a verified token.
 */
@Injectable()
export class StaffAuditRecorder {
  constructor(
    adapterHost: HttpAdapterHost,
    discovery: DiscoveryService,
    scanner: MetadataScanner,
    private readonly store: StaffAuditStore,
    private readonly tokens: AccessTokens,
  ) {
    // In the constructor, on purpose: before Nest registers its routes (the tags must be in their
    // config) and before the gateway's proxy scope is created (it copies the root's hooks then).
    tagControllerRoutes(discovery, scanner);
    const fastify = adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('preHandler', (req) => this.startProxied(req));
    fastify.addHook('onSend', (req, reply, payload) => this.finish(req, reply, payload));
  }

  /** Step 1 for an orchestrator route: called by the interceptor, after the guards. */
  /** Whether this request is a staff write that needs its `started` record (decided without I/O). */
  needsStart(req: StaffRequest): boolean {
    const user = req.user;
    return !isRead(req.method) && !!user && STAFF.has(user.role) && !!auditRouteTagOf(req.routeOptions.config);
  }

  async start(req: StaffRequest): Promise<void> {
    if (!this.needsStart(req)) return;
    const user = req.user!;
    await this.appendStarted(req, { userId: user.userId, role: user.role }, auditRouteTagOf(req.routeOptions.config)!);
  }

  /** Step 1 for a write proxied to auth: the caller is named from the bearer token, as the access guard would. */
  private async startProxied(req: FastifyRequest): Promise<void> {
    const tag = proxiedTagOf(req);
    if (!tag || isRead(req.method)) return;
    const actor = await this.tokenHolder(req);
    if (actor) await this.appendStarted(req, actor, tag);
  }

  private async appendStarted(req: FastifyRequest, actor: Actor, tag: AuditRouteTag): Promise<void> {
    const entry = buildEntry(actor, this.describe(req, tag));
    try {
      await this.store.append(entry);
      started.set(req, { actor });
    } catch (err) {
      started.set(req, 'failed');
      req.log.error({ err, audit: entry }, 'staff audit record not written: request refused before it ran');
      throw new AppException(
        'AUDIT_TRAIL_UNAVAILABLE',
        'The staff audit trail could not record this request, so it was not carried out: nothing was changed',
      );
    }
  }

  /** Step 2: the outcome. */
  private async finish(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const tag = auditRouteTagOf(req.routeOptions.config) ?? proxiedTagOf(req);
    if (!tag || !isAudited(req.method, tag)) return payload;
    const start = started.get(req);
    if (start === 'failed') return payload; // already answered 503: nothing ran, nothing more to say
    const actor = start?.actor ?? (await this.actorOf(req as StaffRequest, reply.statusCode, tag));
    if (!actor) return payload;
    const entry = buildEntry(actor, this.describe(req, tag), { status: reply.statusCode, payload });
    try {
      await this.store.append(entry);
      return payload;
    } catch (err) {
      if (start) {
        req.log.error({ err, audit: entry }, 'staff audit outcome not written: the write had run, its started record stands');
        return payload;
      }
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

  private describe(req: FastifyRequest, tag: AuditRouteTag): AuditedRequest {
    return {
      method: req.method,
      // a proxied request has no template of its own: its path says what it was
      route: tag.name === null ? req.url.split('?')[0] : (req.routeOptions.url ?? req.url.split('?')[0]),
      params: tag.name === null ? {} : req.params,
      query: req.query,
      body: req.body,
      requestId: String(req.id),
      tag,
    };
  }

  /**
   * The staff member behind a request with no started record: the access guard's user, or, when
   * the guard refused the permission (403) before naming one, or for a proxied request, the holder
   * of the bearer token (the guard's verification is cached, so no second call to auth). Anyone
   * else (a customer, no token, a revoked one) is not recorded.
   */
  private async actorOf(req: StaffRequest, status: number, tag: AuditRouteTag): Promise<Actor | null> {
    const user = req.user;
    if (user) return STAFF.has(user.role) ? { userId: user.userId, role: user.role } : null;
    if (status !== 403 && tag.name !== null) return null;
    return this.tokenHolder(req);
  }

  private async tokenHolder(req: FastifyRequest): Promise<Actor | null> {
    const token = bearerToken(req);
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

/** A request to auth through the gateway's proxy (no Nest route: `register*` and `reset-pin/confirm` are the orchestrator's). */
function proxiedTagOf(req: FastifyRequest): AuditRouteTag | undefined {
  if (auditRouteTagOf(req.routeOptions.config)) return undefined;
  const route = req.routeOptions.url;
  return route?.startsWith(AUTH_PROXY_PREFIX) ? { name: null } : undefined;
}
