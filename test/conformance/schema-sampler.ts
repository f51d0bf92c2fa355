import fc from 'fast-check';

/**
 * Values for an OpenAPI 3.0 schema (the dialect `@nestjs/swagger` emits): the document's own
 * example, and random values the schema allows, drawn with fast-check. Only what the documents use
 * is known: type, format (uuid, date, date-time, uri, email), enum, pattern, min/max, lengths, items,
 * required, additionalProperties, nullable, allOf/oneOf/anyOf and `$ref` into components.
 */
export type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  pattern?: string;
  enum?: unknown[];
  nullable?: boolean;
  example?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  default?: unknown;
};

export type Components = { schemas?: Record<string, Schema> };

const URLS = ['https://example.com/webhooks', 'https://pos.example.org/hooks/orders', 'https://shop.example.net/callback?x=1'];

export class SchemaSampler {
  constructor(private readonly components: Components) {}

  resolve(schema: Schema): Schema {
    let current = schema;
    for (let depth = 0; current.$ref && depth < 20; depth++) {
      current = this.components.schemas?.[current.$ref.replace('#/components/schemas/', '')] ?? {};
    }
    if (current.allOf?.length === 1 && !current.type) return { ...current, ...this.resolve(current.allOf[0]), allOf: undefined };
    return current;
  }

  /**
   * The document's own example of a value: the schema's `example`, else an object of its
   * properties' examples (every required one and every optional one that has an example), else
   * undefined when some required part has none.
   */
  example(input: Schema): unknown {
    const schema = this.resolve(input);
    if (schema.example !== undefined) return schema.example;
    if (schema.enum?.length) return schema.enum[0];
    if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part) => this.example(part) ?? {}));
    if (schema.oneOf ?? schema.anyOf) return this.example((schema.oneOf ?? schema.anyOf)![0]);
    if (schema.type === 'array') {
      const item = schema.items ? this.example(schema.items) : undefined;
      return item === undefined ? ((schema.minItems ?? 0) === 0 ? [] : undefined) : [item];
    }
    if (schema.type === 'object' || schema.properties) {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const value = this.example(property);
        if (value === undefined && schema.required?.includes(name)) return undefined;
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    return undefined;
  }

  /** An arbitrary of the values `schema` allows. */
  arbitrary(input: Schema, depth = 0): fc.Arbitrary<unknown> {
    const schema = this.resolve(input);
    const value = this.valueArbitrary(schema, depth);
    return schema.nullable ? fc.oneof({ weight: 9, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }) : value;
  }

  private valueArbitrary(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    if (schema.enum?.length) return fc.constantFrom(...schema.enum);
    if (schema.allOf) {
      return fc.tuple(...schema.allOf.map((part) => this.arbitrary(part, depth))).map((parts) => Object.assign({}, ...parts));
    }
    if (schema.oneOf ?? schema.anyOf) return fc.oneof(...(schema.oneOf ?? schema.anyOf)!.map((part) => this.arbitrary(part, depth)));
    switch (schema.type) {
      case 'integer':
      case 'number': {
        const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
        const max = schema.maximum ?? 1_000_000_000;
        // mostly modest values, sometimes the documented bounds themselves
        const modest = fc.integer({ min: Math.max(min, -1_000_000), max: Math.max(Math.min(max, 1_000_000), Math.max(min, -1_000_000)) });
        return fc.oneof({ weight: 8, arbitrary: modest }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
      }
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const item = schema.items ? this.arbitrary(schema.items, depth + 1) : fc.constant('x');
        return fc.array(item, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
      }
      case 'string':
        return this.stringArbitrary(schema);
      default:
        if (schema.type === 'object' || schema.properties) return this.objectArbitrary(schema, depth);
        return fc.constant('x');
    }
  }

  private stringArbitrary(schema: Schema): fc.Arbitrary<unknown> {
    switch (schema.format) {
      case 'uuid':
        return fc.uuid({ version: 4 });
      case 'date': {
        // a day that exists (a full-date of RFC 3339): a pattern alone allows 2026-02-31
        const days = fc
          .date({ min: new Date('2020-01-01T00:00:00.000Z'), max: new Date('2030-12-31T23:59:59.999Z'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
        return schema.pattern === undefined ? days : days.filter((day) => new RegExp(schema.pattern!).test(day));
      }
      case 'date-time':
        return fc
          .date({ min: new Date('2020-01-01T00:00:00.000Z'), max: new Date('2030-12-31T23:59:59.999Z'), noInvalidDate: true })
          .map((d) => d.toISOString());
      case 'uri':
        return fc.constantFrom(...URLS);
      case 'email':
        return fc.stringMatching(/^[a-z][a-z0-9]{1,10}$/).map((local) => `${local}@example.com`);
      default:
    }
    const min = schema.minLength ?? 0;
    const max = Math.max(min, Math.min(schema.maxLength ?? 24, 24));
    if (schema.pattern !== undefined) {
      const pattern = new RegExp(schema.pattern);
      return fc.stringMatching(pattern).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
    }
    // letters and digits, never blank: a documented plain string is a name, a note, a reason
    return fc.stringMatching(/^[A-Za-z0-9]+( [A-Za-z0-9]+)?$/).filter((s) => s.length >= Math.max(min, 1) && s.length <= max);
  }

  private objectArbitrary(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    const properties = Object.entries(schema.properties ?? {});
    if (properties.length === 0 || depth > 4) return fc.constant({});
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of properties) record[name] = this.arbitrary(property, depth + 1);
    return fc.record(record, { requiredKeys: (schema.required ?? []).filter((name) => name in record) });
  }

  /** `count` values of `schema`, reproducible from `seed`. */
  samples(schema: Schema, count: number, seed: number): unknown[] {
    return fc.sample(this.arbitrary(schema), { numRuns: count, seed });
  }
}
