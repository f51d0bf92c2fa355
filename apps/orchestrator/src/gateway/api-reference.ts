import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The rendered reference of the public API at `/api/docs`: Swagger UI reading the public document
 * (`/api/openapi.json`). Every asset is served from the `swagger-ui-dist` package installed with
 * `@nestjs/swagger`, never from a CDN, so the page works offline and a third-party host can neither
 * track readers nor inject script. `SwaggerModule.setup` would need `@fastify/static` and would
 * also publish the full (internal) document; a handful of explicit routes does neither.
 */
export const API_REFERENCE_PATH = '/api/docs';
const DOCUMENT_URL = '/api/openapi.json';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// The initializer is a file rather than an inline script so that a strict Content-Security-Policy
// (script-src 'self') can be applied to the page.
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(DOCUMENT_URL)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Mobile money platform: public API reference</title>
    <link rel="stylesheet" href="${API_REFERENCE_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${API_REFERENCE_PATH}/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${API_REFERENCE_PATH}/swagger-ui-bundle.js"></script>
    <script src="${API_REFERENCE_PATH}/swagger-ui-standalone-preset.js"></script>
    <script src="${API_REFERENCE_PATH}/swagger-initializer.js"></script>
  </body>
</html>
`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'";

function assetsDirectory(): string {
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function registerApiReference(fastify: FastifyInstance): void {
  const directory = assetsDirectory();
  // Assets are read once, on first request: a few MB that most processes never serve.
  const cache = new Map<string, Buffer>();

  fastify.get(API_REFERENCE_PATH, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE),
  );
  fastify.get(`${API_REFERENCE_PATH}/swagger-initializer.js`, async (_req, reply) =>
    reply.type('application/javascript; charset=utf-8').send(INITIALIZER),
  );
  for (const [file, type] of Object.entries(ASSETS)) {
    fastify.get(`${API_REFERENCE_PATH}/${file}`, async (_req, reply) => {
      let body = cache.get(file);
      if (!body) {
        body = await readFile(join(directory, file));
        cache.set(file, body);
      }
      return reply.type(type).header('cache-control', 'public, max-age=86400').send(body);
    });
  }
}
