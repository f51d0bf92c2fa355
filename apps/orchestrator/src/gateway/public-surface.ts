import { type PublicSurfaceOptions, isUnder } from '@mm/platform';

/**
 * Internal route families reachable through the orchestrator's process: its own `/api/internal/*`
 * (service-key routes other services call, e.g. the merchant directory) and auth's internal
 * endpoints behind the `/api/auth` proxy. Matched on the normalised path (path-normalisation.ts).
 */
export const INTERNAL_ROUTE_PREFIXES = ['/api/internal', '/api/auth/internal'] as const;

export function isInternalRoute(normalisedPath: string): boolean {
  return INTERNAL_ROUTE_PREFIXES.some((prefix) => isUnder(normalisedPath, prefix));
}

/**
 * What the Internet may reach on the public listener (docs/architecture.md "Processes and ports"): everything under `/api`
 * except the internal families, the root `/health` probe, and `/hz/<service>` where enabled
 * (staging, review). Anything else at the root (`/metrics`, the full `/openapi.json`) is internal.
 */
export function orchestratorPublicSurface(hzRoutesEnabled: boolean): PublicSurfaceOptions {
  return {
    isPublic: (path) => {
      if (path === '/health') return true;
      if (hzRoutesEnabled && isUnder(path, '/hz')) return true;
      return isUnder(path, '/api') && !isInternalRoute(path);
    },
  };
}
