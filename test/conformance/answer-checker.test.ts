import { AnswerChecker, type Document, type Operation } from './answer-checker';
import { SchemaSampler } from './schema-sampler';

/** The conformance test is only as strict as its checker and its sampler: both are held here to what they must catch. */
const document: Document = {
  paths: {},
  components: {
    schemas: {
      Connection: {
        type: 'object',
        required: ['id', 'status'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['active', 'revoked'] },
          revokedBy: { type: 'string', enum: ['merchant', 'admin'], nullable: true },
          amount: { type: 'integer', minimum: 1 },
        },
      },
      ErrorBody: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
    },
  },
};
const operation: Operation = {
  responses: {
    '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Connection' } } } },
    '204': {},
    '429': {
      headers: { 'Retry-After': { required: true, schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    },
  },
};
const ID = '3f1e2d4c-5b6a-4789-8abc-def012345678';
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'x-request-id': ID, ...headers },
  text: body === undefined ? '' : JSON.stringify(body),
});

describe('the conformance checker', () => {
  const checker = new AnswerChecker(document);

  it('accepts an answer the document describes, a nullable enum at null included', () => {
    expect(checker.check(operation, answer(200, { id: ID, status: 'revoked', revokedBy: null, amount: 3 }))).toEqual([]);
    expect(checker.check(operation, answer(204, undefined))).toEqual([]);
    expect(checker.check(operation, answer(429, { code: 'RATE_LIMITED' }, { 'retry-after': '30' }))).toEqual([]);
  });

  it('finds every way an answer can leave the document', () => {
    const found = (status: number, body: unknown, headers?: Record<string, string>) =>
      checker.check(operation, answer(status, body, headers));
    expect(found(404, { code: 'NOT_FOUND' })).toEqual([expect.stringContaining('status 404 not documented')]);
    expect(found(200, { id: ID, status: 'paused' })).toEqual([expect.stringContaining('departs from its schema')]);
    expect(found(200, { id: ID, status: 'active', amount: 1.5 })).toEqual([expect.stringContaining('departs from its schema')]);
    expect(found(200, { id: 'x', status: 'active' })).toEqual([expect.stringContaining('format')]);
    expect(found(200, { id: ID, status: 'active', secret: 'k' })).toEqual([expect.stringContaining('additional properties')]);
    expect(found(200, { status: 'active' })).toEqual([expect.stringContaining("required property 'id'")]);
    expect(found(204, { id: ID })).toEqual([expect.stringContaining('a body where none is documented')]);
    expect(found(429, { code: 'RATE_LIMITED' })).toEqual(['429: header Retry-After missing']);
    expect(checker.check(operation, { status: 204, headers: {}, text: '' })).toEqual(['no X-Request-Id header']);
  });
});

describe('the schema sampler', () => {
  const sampler = new SchemaSampler(document.components!);
  const checker = new AnswerChecker(document);

  it('draws only values its schema allows, absent optional fields and null included', () => {
    const values = sampler.samples({ $ref: '#/components/schemas/Connection' }, 200, 7);
    for (const value of values) expect(checker.check(operation, answer(200, value))).toEqual([]);
    expect(values.some((v) => (v as { revokedBy?: unknown }).revokedBy === null)).toBe(true);
    expect(values.some((v) => !('amount' in (v as object)))).toBe(true);
  });

  it('composes the example of an object from its fields, leaving out optional fields without one', () => {
    const schema = {
      type: 'object',
      required: ['phone'],
      properties: { phone: { type: 'string', example: '+237690000001' }, note: { type: 'string' }, count: { type: 'integer', example: 2 } },
    };
    expect(sampler.example(schema)).toEqual({ phone: '+237690000001', count: 2 });
    expect(sampler.example({ ...schema, properties: { phone: { type: 'string' } } })).toBeUndefined();
  });
});
