import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';

/**
 * Remembers every route the app registers so that an unmatched request can be told apart:
 * a path that exists under another method is 405 METHOD_NOT_ALLOWED (with `Allow`), anything
 * else 404 NOT_FOUND. Fastify itself answers 404 for both.
 */
export class RouteRegistry {
  private readonly methodsByPath = new Map<string, Set<string>>();
  private router?: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;

  attach(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const set = this.methodsByPath.get(route.url) ?? new Set<string>();
      methods.forEach((m) => set.add(m.toUpperCase()));
      this.methodsByPath.set(route.url, set);
      this.router = undefined;
    });
  }

  /** Methods allowed on a concrete path; empty when no route matches the path at all. */
  allowedMethods(path: string): string[] {
    if (!this.router) {
      const router = FindMyWay({ ignoreTrailingSlash: false });
      for (const [url, methods] of this.methodsByPath) {
        router.on('GET', url, () => undefined, { methods: [...methods] });
      }
      this.router = router;
    }
    const found = this.router.find('GET', path.split('?')[0]);
    return found ? [...((found.store as { methods: string[] }).methods ?? [])].sort() : [];
  }
}
