import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Components, Schema } from './schema-sampler';

/**
 * Holds real answers against an OpenAPI document with ajv: the status must be documented for the
 * operation, the body must match that status's schema (or be absent where none is documented),
 * every answer carries X-Request-Id, and the headers the document marks required are there.
 */
export type Operation = {
  operationId?: string;
  deprecated?: boolean;
  security?: Array<Record<string, unknown>>;
  /** the roles the role matrix lets call the operation (orchestrator routes with a required permission) */
  'x-allowed-roles'?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema; example?: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema; examples?: Record<string, { value?: unknown }> }> };
  responses?: Record<
    string,
    { content?: Record<string, { schema?: Schema }>; headers?: Record<string, { required?: boolean; schema?: Schema }> }
  >;
};
export type Document = { paths: Record<string, Record<string, Operation>>; components?: Components };

export interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  /** the raw body text */
  text: string;
}

const DOCUMENT_ID = 'document';

export class AnswerChecker {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<Schema, ValidateFunction>();

  constructor(document: Document) {
    // OpenAPI 3.0 schemas: `nullable`, `example` and friends are not JSON-schema keywords.
    this.ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    this.ajv.addKeyword({ keyword: 'example' });
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: this.rebase(document.components ?? {}) });
  }

  /**
   * A schema as ajv reads it: `#/components/…` refs point into the document added under
   * DOCUMENT_ID, and OpenAPI 3.0's `nullable: true` allows null for the whole schema (an enum or an
   * allOf beside it included), which JSON schema says with an alternative.
   */
  private rebase(value: unknown): object {
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(node)) {
        if (key === '$ref' && typeof inner === 'string') out[key] = inner.replace(/^#\/components\//, `${DOCUMENT_ID}#/components/`);
        else if (key === 'example' || key === 'examples') out[key] = inner;
        else out[key] = rewrite(inner);
      }
      // An answer names only documented fields: an object with `properties` and nothing said about
      // others has no others (the documents' request bodies say `false` themselves).
      if (out.properties && out.additionalProperties === undefined && !out.allOf && !out.oneOf && !out.anyOf)
        out.additionalProperties = false;
      if (out.nullable !== true) return out;
      const { nullable: _nullable, description, ...schema } = out;
      return { description, anyOf: [{ type: 'null' }, schema] };
    };
    return rewrite(value) as object;
  }

  /** The ways `answer` departs from what `operation` documents (empty when it conforms). */
  check(operation: Operation, answer: Answer): string[] {
    const problems: string[] = [];
    if (!answer.headers['x-request-id']) problems.push('no X-Request-Id header');
    const response = operation.responses?.[String(answer.status)] ?? operation.responses?.[`${String(answer.status)[0]}XX`];
    if (!response) return [...problems, `status ${answer.status} not documented (${answer.text.slice(0, 160)})`];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required && answer.headers[name.toLowerCase()] === undefined) problems.push(`${answer.status}: header ${name} missing`);
    }
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (answer.text !== '' && response.content === undefined) problems.push(`${answer.status}: a body where none is documented`);
      return problems;
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `${answer.status}: body is not JSON: ${answer.text.slice(0, 80)}`];
    }
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(this.rebase(schema));
      this.compiled.set(schema, validate);
    }
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
      problems.push(`${answer.status}: body departs from its schema: ${errors.join('; ')} (${answer.text.slice(0, 160)})`);
    }
    return problems;
  }
}
