import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppException, sendError } from '@mm/errors';
import { isUnder } from '@mm/platform';

/**
 * The operators' console (apps/console), built by `npm run build` into `dist/console`, served at
 * `/console` from the same origin as `/api`, so it needs no CORS and its token never crosses origins.
 * Every file of the build is listed once, when first asked for: a request can only ever get one of
 * those files (no path is joined from the URL), `/console/assets/*` that is not one of them is a 404,
 * and any other path under `/console` is a client route answered with `index.html`.
 *
 * These are plain Fastify routes, not Nest controllers, so they stay out of the OpenAPI document.
 */
export const CONSOLE_PATH = '/console';

/**
 * Scripts only from this origin (the bundle is a file, never inline); styles may be inline because
 * the component library sets CSS variables and positions popovers with style attributes.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Console not built</title></head>
  <body>
    <main>
      <h1>The operators' console has not been built</h1>
      <p>Run <code>npm run build</code> (it writes <code>dist/console</code>), then reload this page.</p>
    </main>
  </body>
</html>
`;

interface ConsoleFile {
  body: Buffer;
  type: string;
}

/** `dist/console` of the checkout or image this file runs from (source under Jest, dist/ otherwise). */
export function defaultConsoleDirectory(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'console');
}

function listFiles(root: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const name = relative(root, path).split(sep).join('/');
        files.set(name, { body: readFileSync(path), type: TYPES[extname(name)] ?? 'application/octet-stream' });
      }
    }
  };
  walk(root);
  return files;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}

export function registerConsole(fastify: FastifyInstance, directory: string = defaultConsoleDirectory()): void {
  let files: Map<string, ConsoleFile> | undefined;
  const load = (): Map<string, ConsoleFile> | undefined => {
    if (!files && existsSync(join(directory, 'index.html'))) files = listFiles(directory);
    return files;
  };

  const serve = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> => {
    const build = load();
    if (!build) {
      if ((req.headers.accept ?? '').includes('text/html')) {
        return secure(reply).status(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
      }
      return sendError(req, reply, new AppException('SERVICE_UNAVAILABLE', 'The console has not been built: run npm run build'));
    }
    const path = req.url.split('?')[0];
    const name = path.length > CONSOLE_PATH.length + 1 ? safeDecode(path.slice(CONSOLE_PATH.length + 1)) : '';
    const asset = name && name !== 'index.html' ? build.get(name) : undefined;
    if (asset) {
      // Bundles are named by their content hash: a new build has new names, so they never go stale.
      const cache = name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return secure(reply).type(asset.type).header('cache-control', cache).send(asset.body);
    }
    if (isUnder(`/${name}`, '/assets')) {
      throw new AppException('NOT_FOUND', `Route ${req.method} ${path} not found`);
    }
    const index = build.get('index.html')!;
    return secure(reply).type(index.type).header('cache-control', 'no-cache').send(index.body);
  };

  fastify.get(CONSOLE_PATH, serve);
  fastify.get(`${CONSOLE_PATH}/*`, serve);
}

/** The console's paths are part of the gateway's public surface (matched on the normalised path). */
export function isConsolePath(normalisedPath: string): boolean {
  return isUnder(normalisedPath, CONSOLE_PATH);
}
