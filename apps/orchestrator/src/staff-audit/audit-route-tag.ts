import { METHOD_METADATA } from '@nestjs/common/constants.js';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { AUDIT_TARGET, AUDITED_READ, type AuditTargetSpec, type AuditedReadSpec } from './audit-metadata';

/** What the audit trail needs to know about the route a request reached. */
export interface AuditRouteTag {
  /** `<controller>.<handler>` (`staffAudit.verify`); null for a route no controller declares (the `/api/auth` proxy) */
  name: string | null;
  /** set on a GET route marked `@AuditedRead` */
  read?: AuditedReadSpec;
  /** `@AuditTarget` of a write (several: the first the request carries) */
  target?: AuditTargetSpec | AuditTargetSpec[];
}

/** The key of the tag in a Fastify route's `config` (`request.routeOptions.config`). */
const CONFIG_KEY = 'staffAudit';

export function handlerName(controller: string, handler: string): string {
  const base = controller.replace(/Controller$/, '');
  return `${base.charAt(0).toLowerCase()}${base.slice(1)}.${handler}`;
}

/**
 * Puts each controller route's audit tag (its short name and audit markers) into the Fastify route
 * config Nest gives that route, so that any hook can read it from `request.routeOptions.config`
 * whether or not a guard ran or refused: nothing depends on the order of guards or modules.
 *
 * Must run before Nest registers its routes (`app.init()`), which is when Nest reads the config
 * metadata of each handler (`@RouteConfig`'s key, merged here with any config already declared).
 * Provider constructors run at `NestFactory.create`, well before that.
 */
export function tagControllerRoutes(discovery: DiscoveryService, scanner: MetadataScanner): void {
  for (const wrapper of discovery.getControllers()) {
    const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
    if (!type?.prototype) continue;
    for (const method of scanner.getAllMethodNames(type.prototype)) {
      const fn: unknown = (type.prototype as Record<string, unknown>)[method];
      if (typeof fn !== 'function' || Reflect.getMetadata(METHOD_METADATA, fn) === undefined) continue;
      const tag: AuditRouteTag = {
        name: handlerName(type.name, method),
        read: Reflect.getMetadata(AUDITED_READ, fn) as AuditedReadSpec | undefined,
        target: Reflect.getMetadata(AUDIT_TARGET, fn) as AuditTargetSpec | AuditTargetSpec[] | undefined,
      };
      const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, fn) as Record<string, unknown> | undefined) ?? {};
      Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, [CONFIG_KEY]: tag }, fn);
    }
  }
}

/** The audit tag of the route a request reached; undefined for a route no Nest controller declares. */
export function auditRouteTagOf(routeConfig: unknown): AuditRouteTag | undefined {
  if (!routeConfig || typeof routeConfig !== 'object') return undefined;
  return (routeConfig as Record<string, AuditRouteTag | undefined>)[CONFIG_KEY];
}
