import type { OpenAPIObject } from '@nestjs/swagger';
import { type UpstreamUrls, normaliseRequestPath } from '@mm/platform';
import { isInternalRoute } from './public-surface';

/**
 * One public OpenAPI document for everything a client reaches under `/api`: the orchestrator's own
 * public routes plus the routes the gateway proxies (auth under `/api/auth`, partners under
 * `/api/partners-public`), read from each upstream's own `/openapi.json` so that the document can
 * never describe a route differently from the service that serves it.
 *
 * An upstream path is kept only if the gateway really forwards it: it must sit under the mount's
 * upstream prefix, must not be internal once mounted, must not be shadowed by an orchestrator route
 * (the register* and reset-pin/confirm routes, docs/registration.md "Routes"), and operations callable with nothing but
 * the service key are dropped. Schema names that collide with a different schema are suffixed
 * with the service name and every `$ref` of that upstream is rewritten to match.
 */
export interface GatewayMount {
  /** service name, used for logs and to disambiguate schema names */
  name: string;
  /** the upstream's base URL, or its replicas' (its `/openapi.json` is read at the first that answers) */
  baseUrl: string | UpstreamUrls;
  /** path prefix in the upstream (`/auth`) */
  upstreamPrefix: string;
  /** where the gateway mounts it (`/api/auth`) */
  publicPrefix: string;
}

type Operation = { security?: Array<Record<string, unknown>>; tags?: string[] };
type PathItem = Record<string, unknown>;
const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace']);

/** The public path of an upstream path template, or null when the gateway does not forward it. */
export function mountedPath(template: string, mount: GatewayMount): string | null {
  if (template !== mount.upstreamPrefix && !template.startsWith(`${mount.upstreamPrefix}/`)) return null;
  const mounted = mount.publicPrefix + template.slice(mount.upstreamPrefix.length);
  const normalised = normaliseRequestPath(mounted.replace(/\{[^}]+\}/g, 'param'));
  if (!normalised.ok || isInternalRoute(normalised.path)) return null;
  return mounted;
}

function onlyServiceKey(operation: Operation): boolean {
  const security = operation.security;
  return Boolean(security?.length) && security!.every((requirement) => 'serviceKey' in requirement);
}

function rewriteRefs(value: unknown, renames: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, renames));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        const name = inner.startsWith('#/components/schemas/') ? inner.slice('#/components/schemas/'.length) : undefined;
        out[key] = name !== undefined && renames.has(name) ? `#/components/schemas/${renames.get(name)}` : inner;
      } else {
        out[key] = rewriteRefs(inner, renames);
      }
    }
    return out;
  }
  return value;
}

/** Merges the upstream documents into the orchestrator's public one (pure: no I/O). */
export function mergePublicDocuments(
  own: OpenAPIObject,
  upstreams: Array<{ mount: GatewayMount; document: OpenAPIObject }>,
): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = { ...own.paths };
  const schemas: Record<string, unknown> = { ...own.components?.schemas };
  const securitySchemes: Record<string, unknown> = { ...own.components?.securitySchemes };
  const tags = new Map((own.tags ?? []).map((tag) => [tag.name, tag]));

  for (const { mount, document } of upstreams) {
    const renames = new Map<string, string>();
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) renames.set(name, `${name}_${mount.name}`);
    }
    const upstream = rewriteRefs(document, renames) as OpenAPIObject;
    for (const [name, schema] of Object.entries(upstream.components?.schemas ?? {})) schemas[renames.get(name) ?? name] = schema;
    for (const [name, scheme] of Object.entries(upstream.components?.securitySchemes ?? {})) {
      if (name !== 'serviceKey' && !(name in securitySchemes)) securitySchemes[name] = scheme;
    }
    for (const tag of upstream.tags ?? []) if (!tags.has(tag.name)) tags.set(tag.name, tag);

    for (const [template, item] of Object.entries(upstream.paths)) {
      const mounted = mountedPath(template, mount);
      // An orchestrator route at the same path wins, exactly as in the gateway's router.
      if (mounted === null || mounted in paths) continue;
      const kept = Object.fromEntries(
        Object.entries(item as PathItem).filter(([method, operation]) => !METHODS.has(method) || !onlyServiceKey(operation as Operation)),
      );
      if (Object.keys(kept).some((method) => METHODS.has(method))) paths[mounted] = kept;
    }
  }

  return {
    ...own,
    info: { ...own.info, title: 'Mobile money platform (public API)' },
    paths,
    tags: [...tags.values()],
    components: { ...own.components, schemas: reachableSchemas(paths, schemas) as never, securitySchemes: securitySchemes as never },
  };
}

const SCHEMA_REF = /"\$ref":"#\/components\/schemas\/([^"]+)"/g;

/**
 * Only the schemas the public paths use, directly or through other schemas: the services' full
 * documents also hold the bodies of their internal routes, which the public document must not show.
 */
function reachableSchemas(paths: OpenAPIObject['paths'], schemas: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const pending = [...JSON.stringify(paths).matchAll(SCHEMA_REF)].map((m) => m[1]);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in kept || !(name in schemas)) continue;
    kept[name] = schemas[name];
    for (const m of JSON.stringify(schemas[name]).matchAll(SCHEMA_REF)) pending.push(m[1]);
  }
  return kept;
}

/**
 * Fetches each upstream's document and merges it. An upstream that cannot be read is left out of
 * this answer and reported, so the caller knows not to cache an incomplete document.
 */
export async function buildMergedPublicDocument(
  own: OpenAPIObject,
  mounts: GatewayMount[],
  timeoutMs: number,
): Promise<{ document: OpenAPIObject; missing: string[] }> {
  const results = await Promise.all(
    mounts.map(async (mount) => {
      // Every replica serves the same document: one that is down only sends us to the next.
      for (const base of typeof mount.baseUrl === 'string' ? [mount.baseUrl] : mount.baseUrl) {
        try {
          const res = await fetch(new URL('/openapi.json', base), { signal: AbortSignal.timeout(timeoutMs) });
          if (res.ok) return { mount, document: (await res.json()) as OpenAPIObject };
        } catch {
          // unreachable or too slow: the next replica, if any
        }
      }
      return { mount, document: undefined };
    }),
  );
  const fetched = results.filter((r): r is { mount: GatewayMount; document: OpenAPIObject } => r.document !== undefined);
  return {
    document: mergePublicDocuments(own, fetched),
    missing: results.filter((r) => r.document === undefined).map((r) => r.mount.name),
  };
}

/**
 * `extendDocument` for the orchestrator's public surface: merges the proxied services' routes, keeps
 * a complete merge for `ttlMs` (a redeployed upstream shows up within that time), and never caches
 * an incomplete one (an upstream that was down is asked again on the next request).
 */
export function mergedDocumentProvider(
  mounts: GatewayMount[],
  options: { timeoutMs: number; ttlMs: number },
): (own: OpenAPIObject) => Promise<OpenAPIObject> {
  let cached: { document: OpenAPIObject; at: number } | undefined;
  return async (own) => {
    if (cached && Date.now() - cached.at < options.ttlMs) return cached.document;
    const { document, missing } = await buildMergedPublicDocument(own, mounts, options.timeoutMs);
    if (missing.length === 0) {
      cached = { document, at: Date.now() };
      return document;
    }
    // Served anyway (the app's own routes are still right), saying what is missing.
    return { ...document, info: { ...document.info, 'x-unavailable-services': missing } as OpenAPIObject['info'] };
  };
}
