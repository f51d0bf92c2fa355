import { type ArgumentMetadata, type PipeTransform, ValidationPipe } from '@nestjs/common';
import { type ValidationArguments, type ValidatorConstraintInterface, ValidationTypes, getMetadataStorage } from 'class-validator';
import { PlatformValidationPipe } from '@mm/platform';

/**
 * The class-validator rules of a DTO, compiled once (one of the confirm's speed-ups,
 * docs/performance.md "Ledger"). On the hot route, class-validator spends most of its time finding
 * the rules again on every request (it scans the metadata of every DTO of the app, for each nested
 * object) and class-transformer copies the body into class instances; the checks themselves are
 * cheap. A compiled check runs the very same constraint functions the decorators registered
 * (IsUUID, MaxLength, IsMoney…), with the semantics the global
 * ValidationPipe gives them (whitelist + forbidNonWhitelisted, OptionalField, IsDefined, ValidateNested with
 * @Type), so the decorators stay the one source of truth.
 *
 * It only ever says "valid" or "not sure": a body it does not accept goes through the global
 * ValidationPipe as before, so every refusal keeps its exact body, codes and messages. A DTO using a
 * feature this compiler does not know (groups, `each`, async or conditional rules other than
 * OptionalField / NullableField, IsDefined, or class-transformer reshaping the body: @Transform, @Expose, @Exclude, a
 * converting @Type) is not compiled at all: such a body always takes the pipe.
 */
export type CompiledCheck = (body: unknown) => boolean;

/** A DTO class (what class-validator and class-transformer key their metadata by). */
type DtoClass = abstract new (...args: never[]) => unknown;

interface Rule {
  instance: ValidatorConstraintInterface;
  property: string;
  constraints: unknown[];
}

interface PropertyPlan {
  name: string;
  /** OptionalField / NullableField (conditional validation): when one returns false the property is not checked */
  conditions: ((object: object, value: unknown) => boolean)[];
  rules: Rule[];
  /** ValidateNested with @Type: the nested class's plan */
  nested?: () => ClassPlan;
}

interface ClassPlan {
  target: DtoClass;
  properties: PropertyPlan[];
  names: Set<string>;
}

class NotCompilable extends Error {}

/** class-transformer's @Type metadata (the nested class ValidateNested validates against). */
interface TypeMetadataStorage {
  findTypeMetadata(target: DtoClass, propertyName: string): { typeFunction: (options?: unknown) => DtoClass } | undefined;
  findTransformMetadatas(target: DtoClass, propertyName: string, transformationType: number): unknown[];
  getExposedMetadatas(target: DtoClass): unknown[];
  getExcludedMetadatas(target: DtoClass): unknown[];
}

/** class-transformer's TransformationType.PLAIN_TO_CLASS (what the pipe's `transform: true` runs). */
const PLAIN_TO_CLASS = 0;

function typeStorage(): TypeMetadataStorage | undefined {
  try {
    // Not in class-transformer's public index, but the storage its @Type decorator writes to.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional deep import, checked below
    const mod = require('class-transformer/cjs/storage') as { defaultMetadataStorage?: TypeMetadataStorage };
    const storage = mod.defaultMetadataStorage;
    const complete = ['findTypeMetadata', 'findTransformMetadatas', 'getExposedMetadatas', 'getExcludedMetadatas'].every(
      (method) => typeof (storage as unknown as Record<string, unknown> | undefined)?.[method] === 'function',
    );
    return complete ? storage : undefined;
  } catch {
    return undefined;
  }
}

function compileClass(target: DtoClass, cache: Map<DtoClass, ClassPlan>, types: TypeMetadataStorage): ClassPlan {
  const known = cache.get(target);
  if (known) return known;
  const storage = getMetadataStorage();
  // The options the global ValidationPipe validates with: no groups, `always` and `strictGroups` off.
  const metadatas = storage.getTargetValidationMetadatas(target, '', false, false, undefined);
  // No rules at all: class-validator refuses the value (forbidUnknownValues).
  if (metadatas.length === 0) throw new NotCompilable(`${target.name} has no validation rules`);
  // The pipe validates what class-transformer made of the body: a class that reshapes it (@Transform,
  // @Expose, @Exclude) would be checked here on other values than there.
  if (types.getExposedMetadatas(target).length > 0 || types.getExcludedMetadatas(target).length > 0) {
    throw new NotCompilable(`${target.name}: @Expose or @Exclude`);
  }
  const plan: ClassPlan = { target, properties: [], names: new Set() };
  cache.set(target, plan);
  const grouped = storage.groupByPropertyName(metadatas);
  for (const [name, list] of Object.entries(grouped)) {
    if (types.findTransformMetadatas(target, name, PLAIN_TO_CLASS).length > 0)
      throw new NotCompilable(`${target.name}.${name}: @Transform`);
    const property: PropertyPlan = { name, conditions: [], rules: [] };
    for (const m of list) {
      if (m.groups?.length || m.always !== undefined || m.each || m.validateIf) {
        throw new NotCompilable(`${target.name}.${name}: groups, always, each or validateIf`);
      }
      switch (m.type) {
        case ValidationTypes.CONDITIONAL_VALIDATION:
          property.conditions.push(m.constraints[0] as PropertyPlan['conditions'][number]);
          break;
        // IsDefined has its own type in class-validator but runs like any rule, after the conditions.
        case ValidationTypes.IS_DEFINED:
        case ValidationTypes.CUSTOM_VALIDATION:
          for (const c of storage.getTargetValidatorConstraints(m.constraintCls)) {
            if (c.async) throw new NotCompilable(`${target.name}.${name}: async rule`);
            property.rules.push({ instance: c.instance, property: m.propertyName, constraints: m.constraints });
          }
          break;
        case ValidationTypes.NESTED_VALIDATION: {
          const declared = typeof m.target === 'function' ? (m.target as DtoClass) : target;
          const type = types.findTypeMetadata(declared, name);
          if (!type) throw new NotCompilable(`${target.name}.${name}: ValidateNested without @Type`);
          const nestedClass = type.typeFunction();
          property.nested = () => compileClass(nestedClass, cache, types);
          break;
        }
        case ValidationTypes.WHITELIST:
          break; // @Allow: the property may exist, nothing to check
        default:
          throw new NotCompilable(`${target.name}.${name}: ${m.type}`);
      }
    }
    // @Type without ValidateNested converts a value (e.g. a string to a number) before the pipe checks it.
    if (!property.nested && types.findTypeMetadata(target, name))
      throw new NotCompilable(`${target.name}.${name}: @Type without ValidateNested`);
    plan.properties.push(property);
    plan.names.add(name);
  }
  // Compile nested classes now, so an unsupported one is found at start, not per request.
  for (const p of plan.properties) p.nested?.();
  return plan;
}

/** A JSON object as the body parser produces it: not an array, no class, no exotic prototype. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function accepts(plan: ClassPlan, object: unknown): boolean {
  if (!isPlainObject(object)) return false;
  // whitelist + forbidNonWhitelisted: a property without rules is an error.
  for (const key of Object.keys(object)) if (!plan.names.has(key)) return false;
  for (const p of plan.properties) {
    const value = object[p.name];
    if (!p.conditions.every((condition) => condition(object, value))) continue;
    for (const rule of p.rules) {
      const args: ValidationArguments = {
        targetName: plan.target.name,
        property: rule.property,
        object,
        value,
        constraints: rule.constraints,
      };
      if (rule.instance.validate(value, args) !== true) return false;
    }
    if (p.nested && value !== undefined && !accepts(p.nested(), value)) return false;
  }
  return true;
}

/**
 * The compiled check of `target`, or undefined when it cannot be compiled (then every body takes the
 * global ValidationPipe). Compile once, at start.
 */
export function compileValidation(target: DtoClass): CompiledCheck | undefined {
  const types = typeStorage();
  if (!types) return undefined;
  try {
    const plan = compileClass(target, new Map(), types);
    return (body) => accepts(plan, body);
  } catch (error) {
    if (error instanceof NotCompilable) return undefined;
    throw error;
  }
}

/**
 * A route's body: the compiled check first; anything it does not accept goes through the app's
 * global pipes (the ValidationPipe of the platform), exactly as a `@Body() dto: Dto` would, so a
 * refusal is the same 400 VALIDATION_ERROR, codes and messages as before. Without a global
 * ValidationPipe (never the case in an app built by createApp) the compiled check alone decides
 * nothing: an equivalent pipe is used.
 */
export class BodyValidator<T> {
  private readonly check?: CompiledCheck;

  constructor(
    private readonly target: new () => T,
    private readonly globalPipes: () => PipeTransform[],
  ) {
    this.check = compileValidation(target);
  }

  /** Whether bodies of this DTO are checked by the compiled rules (false: always the pipe). */
  get compiled(): boolean {
    return this.check !== undefined;
  }

  async parse(body: unknown): Promise<T> {
    if (this.check?.(body)) return body as T;
    const metadata: ArgumentMetadata = { type: 'body', metatype: this.target, data: undefined };
    let pipes = this.globalPipes();
    if (!pipes.some((p) => p instanceof ValidationPipe)) pipes = [...pipes, fallbackPipe()];
    let value = body;
    for (const pipe of pipes) value = await pipe.transform(value, metadata);
    return value as T;
  }
}

let fallback: ValidationPipe | undefined;
function fallbackPipe(): ValidationPipe {
  fallback ??= new PlatformValidationPipe();
  return fallback;
}
