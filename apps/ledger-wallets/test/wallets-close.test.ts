import { randomUUID } from 'node:crypto';
import { type Harness, startLedger } from './ledger-harness';

describe('ledger: closing an unused wallet (registration compensation)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  const close = (ownerType: string, ownerId: string) => h.call('POST', '/v1/internal/wallets/close', { ownerType, ownerId });

  it('closes a fresh wallet, idempotently; an owner without a wallet is ABSENT', async () => {
    const ownerId = randomUUID();
    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId });
    expect(created.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await close('USER', ownerId);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ walletId: created.body.id, status: 'CLOSED' });
    }
    const after = await h.call('GET', `/v1/internal/wallets/${created.body.id}`, undefined);
    expect(after.body.status).toBe('CLOSED');
    expect((await close('USER', randomUUID())).body).toEqual({ walletId: null, status: 'ABSENT' });
  });

  it('refuses a wallet money went through: 409 WALLET_NOT_EMPTY, wallet untouched', async () => {
    const ownerId = randomUUID();
    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'MERCHANT', ownerId });
    const account = created.body.accounts.find((a: { currency: string }) => a.currency === 'XAF').id as string;
    // an entry on the account, the way the ledger's own tests arrange balances
    await h.admin.query(`UPDATE ledger.accounts SET balance = 100, available_balance = 100 WHERE id = $1`, [account]);
    const res = await close('MERCHANT', ownerId);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('WALLET_NOT_EMPTY');
    const after = await h.call('GET', `/v1/internal/wallets/${created.body.id}`, undefined);
    expect(after.body.status).toBe('ACTIVE');
  });

  it('validates the owner and needs the service key', async () => {
    expect((await close('PERSON', 'x')).body.code).toBe('VALIDATION_ERROR');
    const anonymous = await h.call(
      'POST',
      '/v1/internal/wallets/close',
      { ownerType: 'USER', ownerId: 'x' },
      { 'x-service-key': 'not-the-key' },
    );
    expect(anonymous.body.code).toBe('INVALID_SERVICE_CREDENTIALS');
  });

  it('answers exactly what its OpenAPI document says: every success body of every wallet route', async () => {
    const doc = await openApi(h);
    const ownerId = randomUUID();
    const answers: Array<[string, string, { status: number; body: unknown }]> = [];
    const call = async (method: string, path: string, documented: string, body?: unknown) => {
      const res = await h.call(method, path, body);
      answers.push([method, documented, res]);
      return res;
    };
    // An agent (two account types per currency, a holder name) and a user without a name (holderName null).
    const created = await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', {
      ownerType: 'AGENT',
      ownerId,
      holderName: 'Awa Ndiaye',
    });
    await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId });
    await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', { ownerType: 'USER', ownerId: randomUUID(), currencies: ['XOF'] });
    await call('GET', `/v1/internal/wallets?ownerType=AGENT&ownerId=${ownerId}`, '/v1/internal/wallets');
    await call('GET', `/v1/internal/wallets/${created.body.id}`, '/v1/internal/wallets/{id}');
    await call('GET', `/v1/internal/accounts/${created.body.accounts[0].id}`, '/v1/internal/accounts/{id}');
    await call('GET', '/v1/internal/technical-accounts', '/v1/internal/technical-accounts');
    await call('GET', '/v1/internal/technical-accounts?currency=XOF', '/v1/internal/technical-accounts');
    await call('POST', '/v1/internal/wallets/close', '/v1/internal/wallets/close', { ownerType: 'AGENT', ownerId });
    await call('POST', '/v1/internal/wallets/close', '/v1/internal/wallets/close', { ownerType: 'AGENT', ownerId: randomUUID() });
    expect(answers.map(([method, path, res]) => `${method} ${path} ${res.status}`)).toEqual([
      'POST /v1/internal/wallets 201',
      'POST /v1/internal/wallets 200',
      'POST /v1/internal/wallets 201',
      'GET /v1/internal/wallets 200',
      'GET /v1/internal/wallets/{id} 200',
      'GET /v1/internal/accounts/{id} 200',
      'GET /v1/internal/technical-accounts 200',
      'GET /v1/internal/technical-accounts 200',
      'POST /v1/internal/wallets/close 200',
      'POST /v1/internal/wallets/close 200',
    ]);
    expect(created.body.accounts).toHaveLength(4);
    expect((answers[6][2].body as unknown[]).length).toBeGreaterThan(0);
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
  });
});

/*
 * The OpenAPI document against real answers: `departures` lists where an answer differs from the
 * schema its route documents (a field the document does not name, a documented field missing, a
 * wrong type or format, a value outside the enum, a null where none is allowed). Every documented
 * field of these views is always present, so "no departure" means the answer's keys are exactly
 * the documented property names, at every level.
 */
type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  additionalProperties?: unknown;
};
type OpenApi = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
};

async function openApi(h: Harness): Promise<OpenApi> {
  const res = await h.app.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.json() as OpenApi;
}

/** The departures of one real answer from what `METHOD /documented/{path}` says it answers with that status. */
function undocumented(doc: OpenApi, method: string, path: string, res: { status: number; body: unknown }): string[] {
  const schema = doc.paths[path]?.[method.toLowerCase()]?.responses[String(res.status)]?.content?.['application/json']?.schema;
  if (!schema) return [`${method} ${path} ${res.status}: no body schema documented`];
  return departures(doc, schema, res.body, `${method} ${path} ${res.status}`);
}

function departures(doc: OpenApi, schema: Schema, value: unknown, at: string): string[] {
  if (schema.$ref) return departures(doc, doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')], value, at);
  if (value === null) return schema.nullable ? [] : [`${at}: null but not nullable`];
  if (schema.allOf) return schema.allOf.flatMap((part) => departures(doc, part, value, at));
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not in the enum`];
  if (schema.type === 'array') {
    if (!Array.isArray(value)) return [`${at}: not an array`];
    return value.flatMap((item, i) => departures(doc, schema.items ?? {}, item, `${at}[${i}]`));
  }
  if (schema.type === 'object' || schema.properties) {
    if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
    const properties = schema.properties;
    if (!properties) return schema.additionalProperties === undefined ? [`${at}: object without documented fields`] : [];
    const fields = value as Record<string, unknown>;
    return [
      ...Object.keys(fields)
        .filter((k) => !(k in properties))
        .map((k) => `${at}.${k}: not documented`),
      ...Object.keys(properties)
        .filter((k) => !(k in fields))
        .map((k) => `${at}.${k}: documented, missing`),
      ...Object.keys(properties)
        .filter((k) => k in fields)
        .flatMap((k) => departures(doc, properties[k], fields[k], `${at}.${k}`)),
    ];
  }
  const typed = schema.type === 'integer' ? Number.isInteger(value) : schema.type === undefined || typeof value === schema.type;
  if (!typed) return [`${at}: ${JSON.stringify(value)} is not a ${schema.type}`];
  if (schema.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(value))) {
    return [`${at}: ${JSON.stringify(value)} is not a uuid`];
  }
  if (schema.format === 'date-time' && (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !value.includes('T'))) {
    return [`${at}: ${JSON.stringify(value)} is not a date-time`];
  }
  return [];
}
