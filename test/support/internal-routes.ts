import 'reflect-metadata';
import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { ServiceName } from '@mm/contracts';
import {
  type AppDefinition,
  type BaseConfig,
  CALLER_NAMES,
  type InternalCallerTable,
  SERVICE_CALLERS,
  ServiceKeyGuard,
  loadConfig,
} from '@mm/platform';

type ModuleLike = Type | DynamicModule | Promise<DynamicModule> | { forwardRef: () => Type } | undefined;

function controllersOf(root: ModuleLike, seen = new Set<unknown>()): Type[] {
  if (!root || root instanceof Promise) return [];
  if ('forwardRef' in root && typeof root.forwardRef === 'function') return controllersOf(root.forwardRef(), seen);
  const dynamic = typeof root === 'function' ? undefined : (root as DynamicModule);
  const cls = (dynamic ? dynamic.module : root) as Type;
  if (seen.has(dynamic ?? cls)) return [];
  seen.add(dynamic ?? cls);
  const meta = <T>(key: string): T[] => (Reflect.getMetadata(key, cls) as T[] | undefined) ?? [];
  const controllers = [...meta<Type>(MODULE_METADATA.CONTROLLERS), ...(dynamic?.controllers ?? [])];
  const imports = [...meta<ModuleLike>(MODULE_METADATA.IMPORTS), ...((dynamic?.imports ?? []) as ModuleLike[])];
  return [...controllers, ...imports.flatMap((m) => controllersOf(m, seen))];
}

function paths(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [value === undefined ? '' : String(value)];
}

function join(...parts: string[]): string {
  const joined = parts
    .flatMap((p) => p.split('/'))
    .filter((s) => s.length > 0)
    .join('/');
  return `/${joined}`;
}

/**
 * Every route of an app guarded by ServiceKeyGuard, as `"<METHOD> <pattern>"` the way the app
 * registers it (global prefix included), read from the controllers' decorators without booting.
 */
export function guardedRoutes<C extends BaseConfig>(def: AppDefinition<C>, env: Record<string, string> = {}): string[] {
  const config = loadConfig(def.Config, { NODE_ENV: 'development', INTERNAL_SERVICE_KEY: 'k'.repeat(32), ...env });
  const prefix = def.options?.(config).globalPrefix ?? '';
  const routes = new Set<string>();
  for (const controller of new Set(controllersOf(def.module(config)))) {
    const classGuarded = ((Reflect.getMetadata(GUARDS_METADATA, controller) as unknown[]) ?? []).includes(ServiceKeyGuard);
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const guarded = classGuarded || ((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[]) ?? []).includes(ServiceKeyGuard);
      if (!guarded) continue;
      for (const base of paths(Reflect.getMetadata(PATH_METADATA, controller))) {
        for (const sub of paths(Reflect.getMetadata(PATH_METADATA, handler))) {
          routes.add(`${RequestMethod[method]} ${join(prefix, base, sub)}`);
        }
      }
    }
  }
  return [...routes].sort();
}

/** What a caller table must satisfy; returns the problems found (empty: none). */
export function callerTableProblems<C extends BaseConfig>(
  service: ServiceName,
  def: AppDefinition<C>,
  table: InternalCallerTable,
): string[] {
  const problems: string[] = [];
  const routes = guardedRoutes(def);
  const listed = Object.keys(table);
  for (const route of routes)
    if (!listed.includes(route)) problems.push(`${route}: internal route without an entry (refused to every caller)`);
  for (const route of listed) if (!routes.includes(route)) problems.push(`${route}: entry for a route that does not exist`);
  const recognised = SERVICE_CALLERS[service];
  const used = new Set<string>();
  for (const [route, callers] of Object.entries(table)) {
    if (callers.length === 0) problems.push(`${route}: no caller (delete the route or name who calls it)`);
    for (const caller of callers) {
      used.add(caller);
      if (!CALLER_NAMES.includes(caller)) problems.push(`${route}: unknown caller ${caller}`);
      else if (!recognised.includes(caller)) problems.push(`${route}: ${caller} is not among ${service}'s callers (SERVICE_CALLERS)`);
    }
  }
  for (const caller of recognised) if (!used.has(caller)) problems.push(`${caller} is recognised by ${service} but allowed on no route`);
  return problems;
}
