import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { type RunningApp, boot } from '../support/boot';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';
import { completePublicDocument } from '../support/public-document';

/**
 * A client generated from a service's OpenAPI document is only as good as the document: a body
 * schema without fields or a route without its error answers leaves integrators guessing. This
 * test reads every service's document (the full one, plus the gateway's public one) and lists each
 * schema that is an object without `properties` (a free-form map must say so with
 * `additionalProperties`), each property without an `example` (a reader, a mock server and a
 * generated SDK's docs all show it) and each operation that documents no 4xx/5xx answer.
 */
type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: unknown;
  items?: Schema;
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: unknown[];
  example?: unknown;
  examples?: unknown;
};
type Operation = {
  deprecated?: boolean;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options']);

/** Every object schema, walking nested properties, items and compositions; `where` names its place. */
function emptyObjects(schema: Schema | undefined, where: string, out: string[]): void {
  if (!schema || schema.$ref) return;
  const composed = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  const isObject = schema.type === 'object' || (schema.type === undefined && composed.length === 0 && !schema.items);
  if (isObject && composed.length === 0 && Object.keys(schema.properties ?? {}).length === 0 && schema.additionalProperties === undefined) {
    out.push(`${where}: object without properties`);
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) emptyObjects(property, `${where}.${name}`, out);
  if (schema.items) emptyObjects(schema.items, `${where}[]`, out);
  if (typeof schema.additionalProperties === 'object') emptyObjects(schema.additionalProperties as Schema, `${where}{}`, out);
  composed.forEach((part, i) => emptyObjects(part, `${where}<${i}>`, out));
}

/**
 * Every property without an `example`, walking nested objects, items and compositions. A `$ref`, an
 * array of `$ref`s and an `allOf`/`oneOf` are exempt (their target carries the examples), and so is
 * an inline object with its own properties or an array of them (its fields carry them, checked here);
 * an enum property may rely on its enum values.
 */
function missingExamples(schema: Schema | undefined, where: string, out: string[]): void {
  if (!schema || schema.$ref) return;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const place = `${where}.${name}`;
    const target = property.items ?? property;
    const documentedElsewhere =
      target.$ref !== undefined ||
      (property.allOf ?? property.oneOf ?? target.allOf ?? target.oneOf) !== undefined ||
      Object.keys(target.properties ?? {}).length > 0;
    const hasExample = property.example !== undefined || property.examples !== undefined || property.enum !== undefined;
    if (!documentedElsewhere && !hasExample) out.push(`${place}: property without an example`);
    missingExamples(property, place, out);
  }
  if (schema.items) missingExamples(schema.items, `${where}[]`, out);
  if (typeof schema.additionalProperties === 'object') missingExamples(schema.additionalProperties as Schema, `${where}{}`, out);
  [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].forEach((part, i) =>
    missingExamples(part, `${where}<${i}>`, out),
  );
}

/** Both walks over one schema. */
function schemaGaps(schema: Schema | undefined, where: string, out: string[]): void {
  emptyObjects(schema, where, out);
  missingExamples(schema, where, out);
}

export function offenders(service: string, doc: Document): string[] {
  const out: string[] = [];
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) schemaGaps(schema, `${service} schema ${name}`, out);
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.has(method)) continue;
      const route = `${service} ${method.toUpperCase()} ${path}`;
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        schemaGaps(media.schema, `${route} request ${type}`, out);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const [type, media] of Object.entries(response.content ?? {}))
          schemaGaps(media.schema, `${route} response ${status} ${type}`, out);
      }
      const statuses = Object.keys(operation.responses ?? {});
      if (!statuses.some((status) => /^[45]\d\d$|^[45]XX$/i.test(status))) {
        out.push(`${route}: no 4xx/5xx error response documented`);
      }
      // A route whose every answer is an error is a retired one (410 Gone): it must say so.
      const success = statuses.filter((status) => /^[23]\d\d$|^[23]XX$/i.test(status));
      if (success.length === 0 && !(operation.deprecated && statuses.includes('410'))) {
        out.push(`${route}: no success response documented`);
      }
      for (const status of success) {
        const schemas = Object.values(operation.responses![status].content ?? {}).map((media) => media.schema);
        // 204 and redirects carry no body; any other success must say what its body is.
        if (status !== '204' && !status.startsWith('3') && !schemas.some(Boolean)) {
          out.push(`${route} response ${status}: no body schema documented`);
        }
      }
    }
  }
  return out;
}

describe('OpenAPI documents are complete', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  const apps: Array<[string, RunningApp]> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const defs = [
      ['orchestrator', orchestratorApp],
      ['auth', authApp],
      ['partners', partnersApp],
      ['ledger-wallets', ledgerWalletsApp],
      ['webhook-dispatcher', webhookDispatcherApp],
    ] as const;
    // The orchestrator boots last, pointed at the listening auth and partners it proxies (its public
    // document merges theirs), and listens so that the reference page is fetched over HTTP.
    for (const [name, def] of defs.slice(1)) {
      const env = serviceEnv(name, db, redis, { LEDGER_OUTBOX_POLL_MS: '0', LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0' });
      apps.push([name, await boot(def as never, env, { listen: name === 'auth' || name === 'partners' })]);
    }
    const url = (name: string) => apps.find(([n]) => n === name)![1].url;
    apps.unshift([
      'orchestrator',
      await boot(
        orchestratorApp as never,
        serviceEnv('orchestrator', db, redis, { AUTH_URL: url('auth'), PARTNERS_URL: url('partners') }),
        {
          listen: true,
        },
      ),
    ]);
  });
  afterAll(async () => {
    for (const [, app] of apps) await app.close();
    await db.drop();
    await redis.flush();
  });

  it('recognises the gaps it guards against', () => {
    const doc: Document = {
      paths: {
        '/x': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '200': {} } } },
        '/gone': { post: { deprecated: true, responses: { '410': {} } } },
        '/errors-only': { get: { responses: { '404': {} } } },
        '/empty': { delete: { responses: { '204': {}, '404': {} } } },
        '/inline': {
          post: {
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } } } },
            responses: { '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Examples' } } } }, '400': {} },
          },
        },
      },
      components: {
        schemas: {
          Empty: { type: 'object', properties: {} },
          Map: { type: 'object', additionalProperties: { type: 'string' } },
          Examples: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              amount: { type: 'integer', example: 5000 },
              status: { type: 'string', enum: ['ACTIVE', 'DISABLED'] },
              owner: { $ref: '#/components/schemas/Map' },
              owners: { type: 'array', items: { $ref: '#/components/schemas/Map' } },
              payer: { allOf: [{ $ref: '#/components/schemas/Map' }] },
              document: { oneOf: [{ $ref: '#/components/schemas/Map' }, { $ref: '#/components/schemas/Empty' }] },
              tags: { type: 'array', items: { type: 'string' } },
              limits: { type: 'object', properties: { daily: { type: 'integer' } } },
            },
          },
        },
      },
    };
    expect(offenders('svc', doc)).toEqual([
      'svc schema Empty: object without properties',
      'svc schema Examples.id: property without an example',
      'svc schema Examples.tags: property without an example',
      'svc schema Examples.limits.daily: property without an example',
      'svc POST /x request application/json: object without properties',
      'svc POST /x: no 4xx/5xx error response documented',
      'svc POST /x response 200: no body schema documented',
      'svc GET /errors-only: no success response documented',
      'svc POST /inline request application/json.note: property without an example',
    ]);
  });

  it('every schema has properties and examples, and every operation documents its errors', async () => {
    const found: string[] = [];
    let operations = 0;
    for (const [name, running] of apps) {
      const urls = name === 'orchestrator' ? ['/openapi.json', '/api/openapi.json'] : ['/openapi.json'];
      for (const url of urls) {
        const res = await running.app.inject({ method: 'GET', url });
        expect(res.statusCode).toBe(200);
        const doc = res.json() as Document;
        operations += Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).filter((m) => METHODS.has(m)).length, 0);
        found.push(...offenders(`${name}${url === '/openapi.json' ? '' : ' (public)'}`, doc));
      }
    }
    expect(operations).toBeGreaterThan(50);
    // Jest's diff prints one offender per line: service, schema or route, and what is missing.
    expect([...new Set(found)]).toEqual([]);
  }, 60_000);

  describe('the public document at /api/openapi.json', () => {
    const UUID = '00000000-0000-4000-8000-000000000000';
    type PublicOperation = Operation & { security?: Array<Record<string, unknown>>; deprecated?: boolean };
    type PublicDocument = {
      paths: Record<string, Record<string, PublicOperation>>;
      components?: { securitySchemes?: Record<string, unknown>; schemas?: Record<string, unknown> };
      info: Record<string, unknown>;
    };
    let doc: PublicDocument;
    const operations = () =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.has(method))
          .map(([method, operation]) => ({ path, method, operation })),
      );

    beforeAll(async () => {
      const orchestrator = apps.find(([name]) => name === 'orchestrator')![1];
      doc = await completePublicDocument<PublicDocument>(orchestrator.url);
    });

    it('merges the routes the gateway proxies to auth and partners, and nothing internal', () => {
      expect(doc.info['x-unavailable-services']).toBeUndefined();
      const paths = Object.keys(doc.paths);
      expect(paths.filter((p) => p.startsWith('/api/auth/')).length).toBeGreaterThan(3);
      expect(paths.filter((p) => p.startsWith('/api/partners-public/')).length).toBeGreaterThan(3);
      expect(paths).toEqual(expect.arrayContaining(['/api/v1/intents', '/api/partners-public/orders']));
      expect(paths.filter((p) => !p.startsWith('/api/') || /\/internal(\/|$)/.test(p))).toEqual([]);
      expect(doc.components?.securitySchemes?.serviceKey).toBeUndefined();
      // Every $ref resolves inside the merged document.
      const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
      expect(refs.filter((name) => !(name in (doc.components?.schemas ?? {})))).toEqual([]);
      // …and every schema is used by a public route (internal bodies stay out of the public document).
      expect(Object.keys(doc.components?.schemas ?? {}).filter((name) => !refs.includes(name))).toEqual([]);
    });

    it('every security requirement names a declared scheme', () => {
      const schemes = Object.keys(doc.components?.securitySchemes ?? {});
      const unknown = operations().flatMap(({ path, method, operation }) =>
        (operation.security ?? []).flatMap((req) =>
          Object.keys(req)
            .filter((s) => !schemes.includes(s))
            .map((s) => `${method} ${path}: ${s}`),
        ),
      );
      expect(unknown).toEqual([]);
    });

    it('a route that refuses an anonymous caller declares its scheme, and a route that answers Deprecation is flagged deprecated', async () => {
      const orchestrator = apps.find(([name]) => name === 'orchestrator')![1];
      const undeclared: string[] = [];
      const unflagged: string[] = [];
      let refused = 0;
      for (const { path, method, operation } of operations()) {
        const url = path.replace(/\{[^}]+\}/g, UUID);
        const res = await fetch(`${orchestrator.url}${url}`, {
          method: method.toUpperCase(),
          headers: method === 'get' || method === 'delete' ? {} : { 'content-type': 'application/json' },
          body: method === 'get' || method === 'delete' ? undefined : '{}',
        });
        await res.arrayBuffer();
        // The upstreams are up: a 502/504 here would hide the answer this test reads.
        expect([`${method} ${path}`, [502, 504].includes(res.status)]).toEqual([`${method} ${path}`, false]);
        if (res.status === 401) {
          refused++;
          if (!operation.security?.length) undeclared.push(`${method.toUpperCase()} ${path}`);
        }
        if (res.headers.get('deprecation') && operation.deprecated !== true) unflagged.push(`${method.toUpperCase()} ${path}`);
      }
      expect(refused).toBeGreaterThan(10);
      expect(undeclared).toEqual([]);
      expect(unflagged).toEqual([]);
    }, 60_000);

    it('flags the moved registration paths as deprecated', () => {
      expect(doc.paths['/api/auth/register']?.post?.deprecated).toBe(true);
      expect(doc.paths['/api/orchestrator/auth/register']?.post?.deprecated).not.toBe(true);
    });
  });

  it('the gateway renders the public reference at /api/docs from local assets only', async () => {
    const base = apps.find(([name]) => name === 'orchestrator')![1].url;
    const page = await fetch(`${base}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    // No CDN: every asset is a path on this host, and each one is served.
    for (const asset of assets) {
      expect(asset).toMatch(/^\/api\/docs\//);
      const res = await fetch(`${base}${asset}`);
      expect([asset, res.status]).toEqual([asset, 200]);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const initializer = await (await fetch(`${base}/api/docs/swagger-initializer.js`)).text();
    expect(initializer).toContain('"/api/openapi.json"');
    expect((await fetch(`${base}/api/openapi.json`)).status).toBe(200);
  });
});
