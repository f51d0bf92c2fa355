import { AnswerChecker, type Document, type Operation } from './answer-checker';
import { excusedByRule, reachedPastValidation } from './answer-outcome';
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

describe('how far a request got', () => {
  const secured: Operation = { ...operation, security: [{ bearer: [] }] };
  const reached = (status: number, body?: unknown, on: Operation = secured) => reachedPastValidation(on, answer(status, body));

  it('counts a route miss (404 from the router, 405) as not reached, though a 404 body passes the checker', () => {
    const routeMiss = { code: 'NOT_FOUND', message: 'Route GET /api/v1/gone not found', requestId: ID };
    const errorBody = {
      type: 'object',
      required: ['code', 'message', 'requestId'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, requestId: { type: 'string' } },
    };
    const documents404: Operation = { ...secured, responses: { '404': { content: { 'application/json': { schema: errorBody } } } } };
    expect(new AnswerChecker(document).check(documents404, answer(404, routeMiss))).toEqual([]);
    expect(reached(404, routeMiss, documents404)).toBe(false);
    expect(reached(405, { code: 'METHOD_NOT_ALLOWED', message: 'Method PUT not allowed on /api/v1/intents' })).toBe(false);
  });

  it('counts a 404 for a resource that does not exist as reached: the route ran and judged the id', () => {
    expect(reached(404, { code: 'NOT_FOUND', message: 'Connection not found' })).toBe(true);
    expect(reached(404, { code: 'INTENT_NOT_FOUND', message: 'Route GET /x not found' })).toBe(true);
    expect(reached(200, { id: ID })).toBe(true);
    expect(reached(204)).toBe(true);
  });

  it('counts refusals of the request or of the caller as not reached', () => {
    expect(reached(400, { code: 'VALIDATION_ERROR' })).toBe(false);
    expect(reached(400, { code: 'MALFORMED_JSON' })).toBe(false);
    expect(reached(401, { code: 'UNAUTHORIZED' })).toBe(false);
    expect(reached(403, { code: 'FORBIDDEN' })).toBe(false);
    expect(reached(429, { code: 'RATE_LIMITED' })).toBe(false);
    expect(reached(500, { code: 'INTERNAL_ERROR' })).toBe(false);
    // on a route without credentials (a login), a 401 is the operation's own answer
    expect(reached(401, { code: 'INVALID_CREDENTIALS' }, operation)).toBe(true);
  });
});

describe('the cross-field excuse', () => {
  const rule = { rule: 'complete grids', fields: ['document.fees', 'document.commissions'] };
  const refusal = (...fields: Array<string | undefined>) => ({
    code: 'VALIDATION_ERROR',
    errors: fields.map((field) => ({ field, code: 'GRID_MISSING' })),
  });

  it("excuses a refusal that names only the rule's fields, nested ones included", () => {
    expect(excusedByRule(rule, refusal('document.fees'))).toBe(true);
    expect(excusedByRule(rule, refusal('document.fees[0].bands[1].from', 'document.commissions[2]'))).toBe(true);
  });

  it('does not excuse a refusal naming any other field, or no field, or another operation', () => {
    expect(excusedByRule(rule, refusal('document.fees[0].to', 'document.quoteValiditySeconds'))).toBe(false);
    expect(excusedByRule(rule, refusal('document.feesCurrency'))).toBe(false);
    expect(excusedByRule(rule, refusal(undefined))).toBe(false);
    expect(excusedByRule(rule, { code: 'VALIDATION_ERROR' })).toBe(false);
    expect(excusedByRule(rule, { code: 'MALFORMED_JSON', errors: [{ field: 'document.fees' }] })).toBe(false);
    expect(excusedByRule(undefined, refusal('document.fees'))).toBe(false);
  });
});
