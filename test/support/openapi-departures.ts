/*
 * A service's OpenAPI document held against what its routes really answer. `departures` lists each
 * place where a real answer differs from the schema its route documents: a field the document does
 * not name, a required field missing, a wrong type or format, a string that breaks its pattern, a
 * value outside the enum, a null where none is allowed. An empty list therefore means the answer's
 * keys are the documented property names at every level (optional ones may be absent) and every
 * value has its documented type. Tests call it on real answers, so a view and its documentation
 * cannot drift apart unnoticed.
 *
 * It reads the OpenAPI 3.0 dialect `@nestjs/swagger` emits (`nullable`, `required` lists,
 * `$ref` into components.schemas).
 */

export type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  pattern?: string;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  additionalProperties?: boolean | Schema;
};

export type OpenApiResponse = { description?: string; content?: Record<string, { schema?: Schema }> };

export type OpenApiDocument = {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
  components?: { schemas?: Record<string, Schema> };
};

/** An answer as the test harnesses return it: the status and the parsed JSON body (undefined when empty). */
export type Answer = { status: number; body: unknown };

/** Anything that can inject a request: a Nest Fastify application (`RunningApp.app`). */
type Injector = { inject(options: { method: 'GET'; url: string }): Promise<{ statusCode: number; json(): unknown }> };

/** The service's own document, read from `/openapi.json` of the booted app. */
export async function openApiOf(app: Injector): Promise<OpenApiDocument> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
  return res.json() as OpenApiDocument;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The departures of one real answer from what `METHOD documentedPath` says it answers with that
 * status (`documentedPath` as the document spells it, e.g. `/v1/internal/accounts/{id}/audit`). A
 * status the route does not document is itself a departure; so is a body on a status documented
 * without content (a 204), or no body where content is documented.
 */
export function undocumented(doc: OpenApiDocument, method: string, documentedPath: string, res: Answer): string[] {
  const at = `${method.toUpperCase()} ${documentedPath} ${res.status}`;
  const operation = doc.paths[documentedPath]?.[method.toLowerCase()];
  if (!operation) return [`${method.toUpperCase()} ${documentedPath}: no such operation in the document`];
  const response = operation.responses?.[String(res.status)];
  if (!response) return [`${at}: status not documented`];
  const empty = res.body === undefined || res.body === '';
  const content = response.content ?? {};
  if (Object.keys(content).length === 0) return empty ? [] : [`${at}: a body, but the document says there is none`];
  const schema = content['application/json']?.schema;
  if (!schema) return [`${at}: no application/json body schema documented`];
  if (empty) return [`${at}: no body, but the document describes one`];
  return departures(doc, schema, res.body, at);
}

/** Where `value` departs from `schema` (resolved against `doc`'s components); `at` names the place in messages. */
export function departures(doc: OpenApiDocument, schema: Schema, value: unknown, at: string): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    return target ? departures(doc, target, value, at) : [`${at}: ${schema.$ref} does not resolve`];
  }
  if (value === null) return schema.nullable ? [] : [`${at}: null but not nullable`];
  if (schema.allOf) return schema.allOf.flatMap((part) => departures(doc, part, value, at));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    const matching = alternatives.filter((part) => departures(doc, part, value, at).length === 0).length;
    if (schema.oneOf && matching !== 1) return [`${at}: matches ${matching} of the oneOf alternatives, not exactly one`];
    return matching > 0 ? [] : [`${at}: matches none of the anyOf alternatives`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not in the enum`];
  if (schema.type === 'array') {
    if (!Array.isArray(value)) return [`${at}: not an array`];
    return value.flatMap((item, i) => departures(doc, schema.items ?? {}, item, `${at}[${i}]`));
  }
  if (schema.type === 'object' || schema.properties) {
    if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
    const fields = value as Record<string, unknown>;
    const properties = schema.properties ?? {};
    const extra = schema.additionalProperties;
    if (!schema.properties && extra === undefined) return [`${at}: object without documented fields`];
    const required = schema.required ?? [];
    return [
      ...Object.keys(fields)
        .filter((k) => !(k in properties))
        .flatMap((k) => {
          if (extra === true) return [];
          if (extra && typeof extra === 'object') return departures(doc, extra, fields[k], `${at}.${k}`);
          return [`${at}.${k}: not documented`];
        }),
      ...required.filter((k) => !(k in fields)).map((k) => `${at}.${k}: required, missing`),
      ...Object.keys(properties)
        .filter((k) => k in fields)
        .flatMap((k) => departures(doc, properties[k], fields[k], `${at}.${k}`)),
    ];
  }
  const typed =
    schema.type === undefined ||
    (schema.type === 'integer'
      ? Number.isInteger(value)
      : schema.type === 'number'
        ? Number.isFinite(value)
        : typeof value === schema.type);
  if (!typed) return [`${at}: ${JSON.stringify(value)} is not of type ${schema.type}`];
  if (typeof value !== 'string') return [];
  if (schema.format === 'uuid' && !UUID.test(value)) return [`${at}: ${JSON.stringify(value)} is not a uuid`];
  if (schema.format === 'date-time' && (Number.isNaN(Date.parse(value)) || !value.includes('T'))) {
    return [`${at}: ${JSON.stringify(value)} is not a date-time`];
  }
  if (schema.format === 'uri' && !URL.canParse(value)) return [`${at}: ${JSON.stringify(value)} is not a uri`];
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
    return [`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`];
  }
  return [];
}
