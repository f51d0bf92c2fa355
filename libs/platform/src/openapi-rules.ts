import { ValidationTypes, getMetadataStorage } from 'class-validator';

/**
 * class-validator's rules of one DTO property, read as JSON-schema keywords. The validation
 * decorators are what the server enforces; the document says the same by construction instead of
 * repeating limits by hand in `@ApiProperty` (where they drifted: `number` for integers, no
 * `format: uuid`, no `additionalProperties: false`).
 */
export type JsonSchema = Record<string, unknown> & {
  type?: string;
  format?: string;
  $ref?: string;
  allOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  nullable?: boolean;
  enum?: unknown[];
  example?: unknown;
};

/**
 * The presence rules: class-validator's IsOptional and the platform's OptionalField / NullableField;
 * `conditional` is any other condition (ValidateIf), which the document cannot say.
 */
export type Presence = 'required' | 'optional' | 'nullable' | 'conditional';

export interface PropertyRules {
  name: string;
  presence: Presence;
  /** keywords for the value itself (or for each item, when the rules say `each`) */
  keywords: JsonSchema;
  /** keywords that apply to the array when the value is a list */
  arrayKeywords: JsonSchema;
  each: boolean;
  /** ValidateNested: the nested class (from the property's design type, when it is a class) */
  nested?: 'object' | 'each';
}

type Metadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** The rule name a metadata record stands for (`isInt`, `maxLength`, `optionalField`…). */
function ruleName(metadata: Metadata): string | undefined {
  if (metadata.name) return metadata.name;
  const constraint = metadata.constraintCls ? getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls)[0] : undefined;
  return constraint?.name;
}

function enumValues(target: unknown): unknown[] {
  const values = Object.entries(target as Record<string, unknown>)
    // a numeric TypeScript enum maps values back to names: keep the values only
    .filter(([key]) => !/^\d+$/.test(key))
    .map(([, value]) => value);
  return [...new Set(values)];
}

/** A RegExp as a JSON-schema pattern; a flag JSON schema cannot say (`i`, `m`) leaves it out. */
function patternOf(pattern: unknown, modifiers: unknown): string | undefined {
  if (pattern instanceof RegExp) return pattern.flags.replace(/[gu]/g, '') === '' ? pattern.source : undefined;
  if (typeof pattern === 'string' && (modifiers === undefined || modifiers === '')) return pattern;
  return undefined;
}

/** Keywords of one rule, or undefined for a rule the document cannot express (a custom check). */
function keywordsOf(name: string, constraints: unknown[]): JsonSchema | undefined {
  const [first, second] = constraints ?? [];
  switch (name) {
    case 'isInt':
      return { type: 'integer' };
    case 'isNumber':
      return { type: 'number' };
    case 'isString':
      return { type: 'string' };
    case 'isBoolean':
      return { type: 'boolean' };
    case 'isObject':
      return { type: 'object' };
    case 'isUuid':
      return { type: 'string', format: 'uuid' };
    case 'isUrl':
      return { type: 'string', format: 'uri' };
    case 'isEmail':
      return { type: 'string', format: 'email' };
    case 'isIso8601':
    case 'isDateString':
      return { type: 'string', format: 'date-time' };
    case 'isIn':
      return { enum: [...(first as unknown[])] };
    case 'isEnum':
      return { enum: enumValues(first) };
    case 'min':
      return { minimum: first };
    case 'max':
      return { maximum: first };
    case 'minLength':
      return { minLength: first };
    case 'maxLength':
      return { maxLength: first };
    case 'isLength':
      return second === undefined ? { minLength: first } : { minLength: first, maxLength: second };
    case 'isNotEmpty':
      return { minLength: 1 };
    case 'matches': {
      const pattern = patternOf(first, second);
      return pattern === undefined ? undefined : { pattern };
    }
    default:
      return undefined;
  }
}

const ARRAY_RULES: Record<string, (constraints: unknown[]) => JsonSchema> = {
  isArray: () => ({ type: 'array' }),
  arrayMinSize: ([min]) => ({ type: 'array', minItems: min }),
  arrayMaxSize: ([max]) => ({ type: 'array', maxItems: max }),
  arrayNotEmpty: () => ({ type: 'array', minItems: 1 }),
  arrayUnique: () => ({ type: 'array', uniqueItems: true }),
};

/**
 * The rules of every validated property of `target` (its parents' included), in declaration order,
 * with the options the platform's global ValidationPipe validates with (no groups).
 */
export function propertyRules(target: abstract new (...args: never[]) => unknown): PropertyRules[] {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(target, '', false, false, undefined);
  const byName = new Map<string, Metadata[]>();
  for (const metadata of metadatas) {
    if (metadata.groups?.length) continue;
    byName.set(metadata.propertyName, [...(byName.get(metadata.propertyName) ?? []), metadata]);
  }
  return [...byName].map(([name, list]) => {
    const rules: PropertyRules = { name, presence: 'required', keywords: {}, arrayKeywords: {}, each: false };
    for (const metadata of list) {
      const rule = ruleName(metadata);
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        // IsOptional / OptionalField: may be absent. NullableField: absent or null.
        if (rule === 'nullableField') rules.presence = 'nullable';
        else if (rule === 'isOptional' || rule === 'optionalField')
          rules.presence = rules.presence === 'nullable' ? 'nullable' : 'optional';
        else if (rules.presence === 'required') rules.presence = 'conditional';
        continue;
      }
      if (metadata.type === ValidationTypes.NESTED_VALIDATION) {
        rules.nested = metadata.each ? 'each' : 'object';
        if (metadata.each) rules.each = true;
        continue;
      }
      if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION || rule === undefined) continue;
      if (rule in ARRAY_RULES) {
        Object.assign(rules.arrayKeywords, ARRAY_RULES[rule](metadata.constraints ?? []));
        continue;
      }
      const keywords = keywordsOf(rule, metadata.constraints ?? []);
      if (!keywords) continue;
      if (metadata.each) rules.each = true;
      Object.assign(rules.keywords, keywords);
    }
    // An enum without a type rule beside it: the type of its values.
    if (rules.keywords.enum && !rules.keywords.type) {
      const types = new Set(rules.keywords.enum.map((value) => typeof value));
      if (types.size === 1) rules.keywords.type = [...types][0];
    }
    return rules;
  });
}

const EXAMPLE_UUID = '3f1e2d4c-5b6a-4789-8abc-def012345678';

/**
 * An example for a property the DTO author gave none, built from its rules so that the server
 * accepts it; undefined where the rules alone cannot produce a valid value (a pattern).
 */
export function exampleFor(schema: JsonSchema): unknown {
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 1;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
      return Math.min(Math.max(min, 1), max);
    }
    case 'boolean':
      return false;
    case 'object':
      return {};
    case 'array':
      return typeof schema.minItems === 'number' && schema.minItems > 0 ? undefined : [];
    case 'string': {
      if (schema.format === 'uuid') return EXAMPLE_UUID;
      if (schema.format === 'date-time') return '2026-11-23T10:00:00.000Z';
      if (schema.format === 'uri') return 'https://example.com/webhooks';
      if (schema.format === 'email') return 'ops@example.com';
      if (schema.pattern !== undefined) return undefined;
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      const max = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
      return 'example'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(7, max)));
    }
    default:
      return undefined;
  }
}
