import 'reflect-metadata';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { INestApplicationContext, PipeTransform, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { type JsonSchema, type PropertyRules, exampleFor, propertyRules } from './openapi-rules';

/**
 * Makes a generated OpenAPI document as strict as the server. `@nestjs/swagger` only sees
 * `@ApiProperty`; what the server enforces is the class-validator rules and the pipes. Here the
 * document is post-processed from those very rules, so a client generated from it sends only
 * requests the server accepts:
 *
 * - every request DTO (a body, a query, a path-parameter class) gets its rules as keywords (IsInt →
 *   integer, IsUUID → uuid, IsUrl → uri, IsISO8601 → date-time, Min/Max/Length/Matches/IsIn/IsEnum…),
 *   `required` from the absence of an optional marker (IsOptional, OptionalField, NullableField, the
 *   last also `nullable`), and `additionalProperties: false` (the global ValidationPipe whitelists
 *   with forbidNonWhitelisted); a property the DTO does not validate is refused as unknown, so the
 *   document does not list it either;
 * - a path parameter whose pipe accepts a UUID and refuses anything else is `format: uuid`;
 * - every 429 declares its Retry-After header, every refusal the platform's error body, and every
 *   success of a deprecated route its Deprecation header.
 *
 * A field may still say more in `@ApiProperty` (description, example, `required: true` for a field
 * the service requires with its own error code rather than the pipe's); what the rules say wins.
 */
type DtoClass = Type<unknown>;
type Parameter = { name: string; in: string; required?: boolean; schema?: JsonSchema; description?: string };
type Operation = {
  operationId?: string;
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};

interface RouteArgument {
  index: number;
  data?: unknown;
  pipes?: Array<PipeTransform | Type<PipeTransform>>;
}

/** What a handler's parameters are made of: its query and path DTO classes and its named path params' pipes. */
interface Handler {
  query?: DtoClass;
  params?: DtoClass;
  pathPipes: Map<string, Array<PipeTransform | Type<PipeTransform>>>;
  classes: DtoClass[];
}

const PROPERTY_METADATA = 'swagger/apiModelProperties';
const API_PARAMETERS = 'swagger/apiParameters';
const SCHEMA_PREFIX = '#/components/schemas/';
/** The platform's error body, added to components by the bootstrap. */
const ERROR_BODY = `${SCHEMA_PREFIX}ErrorBody`;
const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options']);
const PLAIN = new Set<unknown>([Object, String, Number, Boolean, Array, Date, Promise, undefined]);

// Every throttle of the platform sets it, and a relayed 429 carries its upstream's.
const RETRY_AFTER = {
  required: true,
  description: 'when to try again: seconds to wait, or an HTTP date',
  schema: { type: 'string', pattern: '^(\\d+|[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT)$', example: '30' },
};

const DEPRECATION = {
  required: true,
  description: 'the route is deprecated: the Link header (rel="successor-version"), where there is one, names its replacement',
  schema: { type: 'string', example: 'true' },
};

/** A class of the app (an arrow function, such as a lazy `type: () => Nested`, has no prototype). */
function isDtoClass(value: unknown): value is DtoClass {
  return typeof value === 'function' && !PLAIN.has(value) && value.prototype !== undefined;
}

/** The handlers of every controller of the app, by the operationId swagger gives them (`Controller_method`). */
function handlersOf(app: INestApplicationContext): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as DtoClass | null;
      if (!controller?.prototype) continue;
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const method = (controller.prototype as Record<string, unknown>)[key];
        if (key === 'constructor' || typeof method !== 'function' || Reflect.getMetadata(METHOD_METADATA, method) === undefined) continue;
        handlers.set(`${controller.name}_${key}`, handlerOf(controller, key, method));
      }
    }
  }
  return handlers;
}

function handlerOf(controller: DtoClass, key: string, method: object): Handler {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) ?? {}) as Record<string, RouteArgument>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, key) ?? []) as unknown[];
  const handler: Handler = { pathPipes: new Map(), classes: [] };
  for (const [slot, argument] of Object.entries(args)) {
    const kind = Number(slot.split(':')[0]);
    const type = types[argument.index];
    if (
      isDtoClass(type) &&
      argument.data === undefined &&
      [RouteParamtypes.BODY, RouteParamtypes.QUERY, RouteParamtypes.PARAM].includes(kind)
    ) {
      handler.classes.push(type);
      if (kind === RouteParamtypes.QUERY) handler.query = type;
      if (kind === RouteParamtypes.PARAM) handler.params = type;
    }
    if (kind === RouteParamtypes.PARAM && typeof argument.data === 'string' && argument.pipes?.length) {
      handler.pathPipes.set(argument.data, argument.pipes);
    }
  }
  // A body typed `unknown` and validated in the handler names its class in @ApiBody.
  for (const parameter of (Reflect.getMetadata(API_PARAMETERS, method) ?? []) as Array<{ in?: string; type?: unknown }>) {
    if (parameter.in === 'body' && isDtoClass(parameter.type)) handler.classes.push(parameter.type);
  }
  return handler;
}

/**
 * The class of a nested property: its design type, or for a list (design type Array) the class its
 * `@ApiProperty({ type: [Nested] })` or `type: () => Nested` names.
 */
function nestedClass(target: DtoClass, property: string): DtoClass | undefined {
  const design = Reflect.getMetadata('design:type', target.prototype, property) as unknown;
  if (isDtoClass(design)) return design;
  let declared = explicitProperty(target, property)?.type;
  if (typeof declared === 'function' && !isDtoClass(declared)) declared = (declared as () => unknown)();
  return isDtoClass(declared) ? declared : undefined;
}

function explicitProperty(target: DtoClass, property: string): Record<string, unknown> | undefined {
  return Reflect.getMetadata(PROPERTY_METADATA, target.prototype, property) as Record<string, unknown> | undefined;
}

/** Every DTO class the handlers use, and the classes nested in them, by name (the name swagger gives their schema). */
function dtoClasses(handlers: Iterable<Handler>): Map<string, DtoClass> {
  const found = new Map<string, DtoClass>();
  const visit = (target: DtoClass): void => {
    if (found.has(target.name)) return;
    found.set(target.name, target);
    for (const rules of propertyRules(target)) {
      const nested = rules.nested ? nestedClass(target, rules.name) : undefined;
      if (nested) visit(nested);
    }
  };
  for (const handler of handlers) handler.classes.forEach(visit);
  return found;
}

class Strictener {
  private readonly done = new Set<DtoClass>();

  constructor(
    private readonly schemas: Record<string, JsonSchema>,
    private readonly classes: Map<string, DtoClass>,
  ) {}

  /** The schema of a DTO class, made strict in components (created when swagger did not list it). */
  refTo(target: DtoClass): JsonSchema {
    const name = this.classes.get(target.name) === target ? target.name : undefined;
    if (name === undefined) return this.objectSchema(target, { type: 'object' });
    if (!this.done.has(target)) {
      this.done.add(target);
      this.schemas[name] = this.objectSchema(target, this.schemas[name] ?? { type: 'object' });
    }
    return { $ref: `${SCHEMA_PREFIX}${name}` };
  }

  objectSchema(target: DtoClass, existing: JsonSchema): JsonSchema {
    const rules = propertyRules(target);
    if (rules.length === 0) return existing;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const rule of rules) {
      properties[rule.name] = this.propertySchema(target, rule, existing.properties?.[rule.name] ?? {});
      if (isRequired(rule, explicitProperty(target, rule.name)?.required)) required.push(rule.name);
    }
    const schema: JsonSchema = { ...existing, type: 'object', properties, additionalProperties: false };
    if (required.length > 0) schema.required = required;
    else delete schema.required;
    return schema;
  }

  propertySchema(target: DtoClass, rules: PropertyRules, documented: JsonSchema): JsonSchema {
    const nested = rules.nested ? nestedClass(target, rules.name) : undefined;
    const value: JsonSchema = nested ? this.refTo(nested) : { ...rules.keywords };
    const design = Reflect.getMetadata('design:type', target.prototype, rules.name) as unknown;
    const isList = rules.each || Object.keys(rules.arrayKeywords).length > 0 || design === Array || documented.type === 'array';
    let schema: JsonSchema;
    if (isList) {
      const items = nested ? value : withExample({ ...stripRef(documented.items ?? {}), ...value });
      schema = { ...documented, ...rules.arrayKeywords, type: 'array', items };
    } else if (nested) {
      const { type: _type, properties: _properties, $ref: _ref, allOf: _allOf, ...rest } = documented;
      schema = Object.keys(rest).length > 0 ? { ...rest, allOf: [value] } : value;
    } else {
      schema = withExample({ ...documented, ...value });
      // a free-form object (IsObject) says that it is one
      if (schema.type === 'object' && !schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = true;
    }
    if (rules.presence !== 'nullable') return schema;
    // OpenAPI 3.0 ignores whatever sits beside a $ref, `nullable` included: wrap the reference.
    return schema.$ref ? { allOf: [schema], nullable: true } : { ...schema, nullable: true };
  }
}

/**
 * Required unless an optional marker says otherwise. A field under another condition (ValidateIf)
 * is required unless its `@ApiProperty` says `required: false` (a client that always sends it is
 * safe: `to: null` on a pricing band); `required: true` there marks a field the service itself
 * requires with its own error code.
 */
function isRequired(rules: PropertyRules, declared: unknown): boolean {
  if (declared === true || rules.presence === 'required') return true;
  return rules.presence === 'conditional' && declared !== false;
}

function stripRef(schema: JsonSchema): JsonSchema {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

function withExample(schema: JsonSchema): JsonSchema {
  if (schema.example !== undefined || schema.$ref) return schema;
  const example = exampleFor(schema);
  return example === undefined ? schema : { ...schema, example };
}

/** What a path parameter's pipes accept, found by asking them: a UUID and nothing else → format uuid. */
async function pipeFormat(pipes: Array<PipeTransform | Type<PipeTransform>>, name: string): Promise<JsonSchema | undefined> {
  const instances = pipes.map((pipe) => {
    if (typeof pipe !== 'function') return pipe;
    try {
      return new (pipe as new () => PipeTransform)();
    } catch {
      return undefined;
    }
  });
  if (instances.some((pipe) => pipe === undefined)) return undefined;
  const accepts = async (value: string): Promise<boolean> => {
    try {
      let current: unknown = value;
      for (const pipe of instances) current = await pipe!.transform(current, { type: 'param', data: name, metatype: String });
      return true;
    } catch {
      return false;
    }
  };
  const uuid = await accepts('3f1e2d4c-5b6a-4789-8abc-def012345678');
  return uuid && !(await accepts('not-a-uuid')) && !(await accepts('3f1e2d4c')) ? { type: 'string', format: 'uuid' } : undefined;
}

async function strictParameters(operation: Operation, handler: Handler, strict: Strictener): Promise<void> {
  const parameters = operation.parameters ?? [];
  for (const [place, target] of [
    ['query', handler.query],
    ['path', handler.params],
  ] as const) {
    if (!target) continue;
    for (const rules of propertyRules(target)) {
      let parameter = parameters.find((p) => p.in === place && p.name === rules.name);
      if (!parameter) {
        parameter = { name: rules.name, in: place };
        parameters.push(parameter);
      }
      parameter.schema = strict.propertySchema(target, rules, parameter.schema ?? {});
      parameter.required = place === 'path' || rules.presence === 'required';
    }
  }
  for (const parameter of parameters.filter((p) => p.in === 'path')) {
    const pipes = handler.pathPipes.get(parameter.name);
    const format = pipes ? await pipeFormat(pipes, parameter.name) : undefined;
    if (format) parameter.schema = { ...parameter.schema, ...format };
  }
  // a parameter documented by hand (`@ApiParam({ format: 'uuid' })`) gets an example from its keywords too
  for (const parameter of parameters) if (parameter.schema) parameter.schema = withExample(parameter.schema);
  if (parameters.length > 0) operation.parameters = parameters;
}

/** The request body schemas that point at a DTO class in components, made strict there. */
function strictBody(operation: Operation, strict: Strictener, classes: Map<string, DtoClass>): void {
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    const ref = media.schema?.$ref;
    const target = ref?.startsWith(SCHEMA_PREFIX) ? classes.get(ref.slice(SCHEMA_PREFIX.length)) : undefined;
    if (target) strict.refTo(target);
  }
}

function declareRetryAfter(operation: Operation): void {
  const tooMany = operation.responses?.['429'];
  if (tooMany) tooMany.headers = { ...tooMany.headers, 'Retry-After': RETRY_AFTER };
}

/**
 * A deprecated route says so on every answer it gives: `deprecated: true` in the document and a
 * Deprecation header (docs/registration.md "Routes").
 */
function declareDeprecation(operation: Operation): void {
  if (!operation.deprecated) return;
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (/^2/.test(status)) response.headers = { ...response.headers, Deprecation: DEPRECATION };
  }
}

/** Every refusal of every service has the platform's error body, documented or not on the route. */
function declareErrorBodies(operation: Operation): void {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (/^[45]/.test(status) && response.content === undefined) response.content = { 'application/json': { schema: { $ref: ERROR_BODY } } };
  }
}

/** The document, made as strict as the server (see the top of this file). Mutates and returns `document`. */
export async function strictOpenApiDocument(app: INestApplicationContext, document: OpenAPIObject): Promise<OpenAPIObject> {
  const handlers = handlersOf(app);
  const classes = dtoClasses(handlers.values());
  document.components ??= {};
  document.components.schemas ??= {};
  const strict = new Strictener(document.components.schemas as Record<string, JsonSchema>, classes);
  for (const item of Object.values(document.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const operation = value as Operation;
      const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
      if (handler) await strictParameters(operation, handler, strict);
      strictBody(operation, strict, classes);
      declareRetryAfter(operation);
      declareErrorBodies(operation);
      declareDeprecation(operation);
    }
  }
  return document;
}
