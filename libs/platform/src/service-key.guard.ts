import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { type BaseConfig, CONFIG } from './config';
import { type CallerName, type InternalCallerTable, type TrustedCallers, identifyCaller, parseTrustedCallers } from './service-credentials';

export const SERVICE_KEY_HEADER = 'x-service-key';

/**
 * The app's internal route table, provided by its root module:
 * `{ provide: INTERNAL_CALLER_TABLE, useValue: LEDGER_INTERNAL_CALLERS }`.
 */
export const INTERNAL_CALLER_TABLE = Symbol('INTERNAL_CALLER_TABLE');

/** `"<METHOD> <pattern>"` of the route a request matched; HEAD is answered by the GET route. */
export function internalRouteKey(request: FastifyRequest): string {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return `${method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
}

/**
 * Who is calling, by the request's X-Service-Key: the name of a caller in INTERNAL_TRUSTED_CALLERS
 * (compared by SHA-256 digest, in constant time), also kept on the request (`serviceCaller`) so its
 * log line names it. ServiceKeyGuard asks this for internal routes; a public route that serves one
 * service differently (auth's INTENT codes, the orchestrator's) asks its own instance.
 */
export class ServiceCallerKeys {
  private readonly trusted: TrustedCallers;
  /**
   * Keys already recognised → their caller, so a known caller's calls skip the SHA-256 (about 4 µs
   * each, on every internal request). Only recognised keys are ever added, so the map holds at most
   * the trusted digests' count of entries, whatever strangers send; an unknown key still takes the
   * hash and the constant-time comparison.
   */
  private readonly recognised = new Map<string, CallerName>();

  /** `trustedCallers`: INTERNAL_TRUSTED_CALLERS, validated at boot by BaseConfig. */
  constructor(trustedCallers: string) {
    this.trusted = parseTrustedCallers(trustedCallers);
  }

  /** The request's caller (also set as `request.serviceCaller`), or undefined without a recognised key. */
  identify(request: FastifyRequest): CallerName | undefined {
    const key = request.headers[SERVICE_KEY_HEADER];
    if (typeof key !== 'string') return undefined;
    let caller = this.recognised.get(key);
    if (caller === undefined) {
      caller = identifyCaller(this.trusted, key);
      if (caller === undefined) return undefined;
      this.recognised.set(key, caller);
    }
    request.serviceCaller = caller;
    return caller;
  }
}

/**
 * Internal routes. Two questions, in this order:
 * 1. Who is calling? The X-Service-Key must be the key of a caller in INTERNAL_TRUSTED_CALLERS
 *    (compared by SHA-256 digest, in constant time); otherwise 401 INVALID_SERVICE_CREDENTIALS.
 * 2. May that caller use this route? The app's table (apps/<service>/src/internal-callers.ts) must
 *    list it for the route; otherwise 403 SERVICE_NOT_ALLOWED. A route missing from the table is
 *    refused to everyone (default deny), and says so in the log.
 * The caller's name is kept on the request (`serviceCaller`), so the request line names it (never a key).
 */
@Injectable()
export class ServiceKeyGuard implements CanActivate {
  private readonly callers: ServiceCallerKeys;
  private table?: ReadonlyMap<string, ReadonlySet<CallerName>>;

  constructor(
    @Inject(CONFIG) config: BaseConfig,
    private readonly modules: ModuleRef,
  ) {
    this.callers = new ServiceCallerKeys(config.INTERNAL_TRUSTED_CALLERS ?? '');
  }

  /** Looked up once, anywhere in the app (the guard is instantiated in each controller's module). */
  private routes(): ReadonlyMap<string, ReadonlySet<CallerName>> {
    if (!this.table) {
      let table: InternalCallerTable = {};
      try {
        table = this.modules.get<InternalCallerTable>(INTERNAL_CALLER_TABLE, { strict: false });
      } catch {
        // no table provided: every internal route is refused (default deny)
      }
      this.table = new Map(Object.entries(table).map(([route, callers]) => [route, new Set(callers)]));
    }
    return this.table;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const caller = this.callers.identify(request);
    if (!caller) throw new AppException('INVALID_SERVICE_CREDENTIALS');

    const route = internalRouteKey(request);
    const allowed = this.routes().get(route);
    if (!allowed) {
      request.log.error({ route, caller }, 'internal route has no entry in the caller table: refused to every caller');
      throw new AppException('SERVICE_NOT_ALLOWED', 'This internal route is not open to any service');
    }
    if (!allowed.has(caller)) {
      request.log.warn({ route, caller }, 'service credential used on a route its service is not allowed');
      throw new AppException('SERVICE_NOT_ALLOWED');
    }
    return true;
  }
}
