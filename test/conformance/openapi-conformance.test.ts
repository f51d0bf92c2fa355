import type { ServiceName } from '@mm/contracts';
import { MoneyPlatform, type TestUser } from '../e2e/money-platform';
import { orchestratorInternalUrl } from '../e2e/partners-support';
import { deleteRedisKeys } from '../support/infra';
import { completePublicDocument } from '../support/public-document';
import { allowedCallerKey } from '../support/test-env';
import { type Answer, AnswerChecker, type Document, type Operation } from './answer-checker';
import { type CrossFieldRule, errorBodyOf, excusedByRule, isRouteMiss, reachedPastValidation } from './answer-outcome';
import { SchemaSampler } from './schema-sampler';

/**
 * Conformance testing from the documents (the OpenAPI rule of
 * docs/contributing.md "Conventions as practised here"): a client generated from an OpenAPI document
 * must be able to use the API. For every operation of the public document (`/api/openapi.json`) and of
 * each service's internal document, requests are built from the document alone (its examples, then
 * values drawn from its schemas) and sent to the real services; every answer is then held against the
 * same document with ajv.
 *
 * - Every documented example is accepted: never a VALIDATION_ERROR.
 * - A request generated from the schemas is accepted too: the schemas are no looser than the server
 *   (save the rules between fields that no JSON schema says, listed in CROSS_FIELD_RULES).
 * - Every operation is reached past validation (a 2xx, or a business refusal such as a 404 for an
 *   id that does not exist), except the few listed in EXCLUDED with the reason.
 * - No answer lies outside the document: a documented status, a body matching its schema, an
 *   X-Request-Id.
 */
const GENERATED_PER_OPERATION = 2;
const SEED = 30_11;
const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

/** Operations sent at once: enough to keep a run short, few enough for a loaded 2-core machine. */
const CONCURRENCY = 6;

/**
 * Operations that a request built from the document alone cannot take past validation, with the
 * reason. Keyed `<document> <METHOD> <path>`. Empty: every operation is reached.
 */
const EXCLUDED: Record<string, string> = {};

/**
 * Bodies with rules between fields that a JSON schema does not say: a generated body may break
 * them and be refused with VALIDATION_ERROR, naming only the fields of the rule (any other field
 * refused is a looseness of the document). The documented examples of these operations must still
 * be accepted. Keyed `<METHOD> <path>` as the service serves it (the public document's path ends
 * with it).
 */
const CROSS_FIELD_RULES: Record<string, CrossFieldRule> = {
  'POST /api/config/pricing/versions': {
    rule: 'a grid for every operation type and currency, bands contiguous from 1 and open-ended',
    fields: ['document.fees', 'document.commissions'],
  },
  'POST /api/config/limits/versions': {
    rule: 'bounds for every type and currency, single ≤ daily ≤ monthly, an IANA time zone',
    fields: ['document.timezone', 'document.amounts', 'document.tiers', 'document.agents'],
  },
  'POST /api/config/monitoring/versions': {
    rule: 'each per-currency amount list of the rules names every currency exactly once',
    fields: [
      'document.structuring.thresholds',
      'document.passThrough.minAmountIn',
      'document.dormantReactivation.minAmount',
      'document.agentVelocity.maxAmount',
    ],
  },
  'POST /auth/send-otp': { rule: '`intent` is given with purpose INTENT and only with it', fields: ['intent'] },
  'POST /api/v1/intents': { rule: 'clientCountryCode is a served country and starts clientPhone', fields: ['clientCountryCode'] },
  'POST /v1/internal/corrections': {
    rule: 'accountId, direction and amount belong to kind ACCOUNT; transactionId or referenceId to REVERSAL',
    fields: ['accountId', 'direction', 'amount', 'transactionId', 'referenceId'],
  },
  'POST /api/backoffice/ledger/corrections': {
    rule: 'accountId, direction, amount and currency belong to kind ACCOUNT; transactionId or referenceId (one of them) to REVERSAL',
    fields: ['accountId', 'direction', 'amount', 'currency', 'transactionId', 'referenceId'],
  },
  'POST /api/backoffice/approvals': {
    rule: "payload's fields are those of the action (each action's handler checks its own; the route's examples show one per action)",
    fields: ['payload'],
  },
  ...Object.fromEntries(
    ['/auth/register', '/auth/register/merchant', '/auth/register/agent', '/auth/register/admin', '/admin/staff'].map((path) => [
      `POST ${path}`,
      { rule: 'an Idempotency-Key header given with a body clientRequestId must equal it', fields: ['Idempotency-Key'] },
    ]),
  ),
};

function crossFieldRule(method: string, path: string): CrossFieldRule | undefined {
  return Object.entries(CROSS_FIELD_RULES).find(([key]) => {
    const [ruleMethod, rulePath] = key.split(' ');
    return ruleMethod === method.toUpperCase() && path.endsWith(rulePath);
  })?.[1];
}

/**
 * The query parameters a client never makes up: an opaque page cursor is one the API returned (or
 * the document's example of one), never a string drawn at random.
 */
const ISSUED_BY_THE_API = new Set(['cursor']);

/** Runs `work` over `items`, `limit` at a time. */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

interface Target {
  name: string;
  service?: ServiceName;
  baseUrl: string;
  document: Document;
  /** operations to leave to another target (the orchestrator's full document repeats the public one) */
  skip?: (path: string, method: string) => boolean;
}

interface Outcome {
  key: string;
  reached: boolean;
  answers: string[];
}

describe('conformance to the OpenAPI documents', () => {
  const p = new MoneyPlatform();
  /** The calls that end sessions or change or count PINs. */
  type Ending = 'logout' | 'logout-all' | 'change-pin' | 'check-pin';
  const targets: Target[] = [];
  let customer: TestUser;
  /**
   * Per document, a user of its own for each call that ends a session, changes a PIN or counts
   * wrong PINs, so that no other call meets a revoked token or a locked account.
   */
  const own: Record<string, Record<Ending, TestUser>> = {};
  let agent: TestUser;
  let masterAgent: TestUser;
  let merchant: TestUser;
  let admin: string;
  let partnerKey: string;

  beforeAll(async () => {
    await p.start({ partners: true });
    [customer, agent, masterAgent, merchant] = await Promise.all(
      (['CUSTOMER', 'AGENT', 'MASTER_AGENT', 'MERCHANT'] as const).map((role) => p.register(role)),
    );
    for (const name of ['public', 'auth']) {
      const [logout, logoutAll, changePin, checkPin] = await Promise.all([1, 2, 3, 4].map(() => p.register('CUSTOMER')));
      own[name] = { logout, 'logout-all': logoutAll, 'change-pin': changePin, 'check-pin': checkPin };
    }
    await p.fund(customer.accounts.XAF, 1_000_000);
    admin = await p.adminToken();
    const integration = await p.call('POST', '/api/admin/partners/integrations', {
      token: admin,
      body: { name: 'Conformance', technicalContactEmail: 'tech@pos.example', webhookUrl: 'https://pos.example/hooks' },
    });
    if (integration.status !== 201) throw new Error(`integration ${integration.status} ${JSON.stringify(integration.body)}`);
    partnerKey = integration.body.apiKeys.test.key;

    const read = async (url: string) => (await (await fetch(url)).json()) as Document;
    // The gateway's merge of every upstream's document, asked until it is complete: one upstream too slow
    // on a loaded machine would otherwise leave its public operations out of this test unnoticed.
    const publicDocument = await completePublicDocument<Document & { info: Record<string, unknown> }>(p.gateway.url);
    const publicPaths = new Set(Object.keys(publicDocument.paths));
    const internal = orchestratorInternalUrl(p.gateway);
    targets.push(
      { name: 'public', baseUrl: p.gateway.url, document: publicDocument },
      {
        name: 'orchestrator',
        service: 'orchestrator',
        baseUrl: internal,
        document: await read(`${internal}/openapi.json`),
        skip: (path) => publicPaths.has(path),
      },
      { name: 'auth', service: 'auth', baseUrl: p.auth.url, document: await read(`${p.auth.url}/openapi.json`) },
      { name: 'ledger-wallets', service: 'ledger-wallets', baseUrl: p.ledger.url, document: await read(`${p.ledger.url}/openapi.json`) },
      { name: 'partners', service: 'partners', baseUrl: p.partners!.url, document: await read(`${p.partners!.url}/openapi.json`) },
      {
        name: 'webhook-dispatcher',
        service: 'webhook-dispatcher',
        baseUrl: p.dispatcher!.url,
        document: await read(`${p.dispatcher!.url}/openapi.json`),
      },
    );
  }, 120_000);
  afterAll(() => p.stop());

  type Caller = { role: string; token: string };

  /** The caller a client of this path would be, from the path and the credentials the operation asks. */
  function callerByPath(target: string, path: string, operation: Operation): Caller {
    if (path.includes('/partners-public/')) return { role: 'PARTNER', token: partnerKey };
    // calls that end a session or change a PIN get users of their own, so the others keep theirs
    const ending = /\/(logout|logout-all|change-pin|check-pin)$/.exec(path)?.[1] as Ending | undefined;
    if (ending) return own[target][ending];
    // an internal route that asks for a user's token besides the service key is an operator's (the
    // ledger's corrections, holds, audit, chain verifications, reconciliation: 403 OPERATOR_ROLE_REQUIRED to others)
    const requirement = operation.security?.[0] ?? {};
    if ('serviceKey' in requirement && 'bearer' in requirement) return { role: 'ADMIN', token: admin };
    if (/\/merchants?\//.test(path)) return merchant;
    if (path.includes('/agents/me/agents')) return masterAgent;
    if (path.includes('/agents/me')) return agent;
    // the ledger's operator routes (corrections, holds) verify an operator's token besides the service key
    if (/\/(admin|backoffice|config|risk|compliance|corrections|holds|integrity-checks|audit|register\/admin|staff)(\/|$)/.test(path))
      return { role: 'ADMIN', token: admin };
    return customer;
  }

  /**
   * The bearer token a client of this operation would hold. The path's caller, unless the operation
   * names the roles the matrix lets call it (`x-allowed-roles`, from its `x-required-permissions`)
   * and that caller's role is not one of them: then the first caller of this file who has one. A
   * path says who a route is about, not always who calls it: staff read a merchant's statements
   * under /backoffice/merchants/{merchantId}/ with statements.read, which no merchant holds.
   */
  function bearerFor(target: string, path: string, operation: Operation): string {
    const byPath = callerByPath(target, path, operation);
    const allowed = operation['x-allowed-roles'];
    if (!allowed?.length || allowed.includes(byPath.role)) return byPath.token;
    const callers: Caller[] = [customer, merchant, agent, masterAgent, { role: 'ADMIN', token: admin }];
    const holder = callers.find((caller) => allowed.includes(caller.role));
    if (!holder) throw new Error(`no caller of this file has one of the roles ${allowed.join(', ')} of ${path}`);
    return holder.token;
  }

  let addresses = 0;

  function headersFor(target: Target, operation: Operation, method: string, path: string, url: string): Record<string, string> {
    const headers: Record<string, string> = {};
    const requirement = operation.security?.[0] ?? {};
    if ('bearer' in requirement) headers.authorization = `Bearer ${bearerFor(target.name, path, operation)}`;
    if ('serviceKey' in requirement && target.service)
      headers['x-service-key'] = allowedCallerKey(target.service, method, url.split('?')[0]);
    // A client address of its own per call (auth trusts X-Forwarded-For here, as behind the gateway):
    // auth's per-address throttles would otherwise answer 429 to every call of this file after the first ten.
    if (target.name !== 'public') headers['x-forwarded-for'] = `198.51.100.${(addresses++ % 250) + 1}`;
    return headers;
  }

  async function send(target: Target, method: string, url: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
    const res = await fetch(`${target.baseUrl}${url}`, {
      method: method.toUpperCase(),
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
  }

  /** The requests of one operation: the document's examples first, then generated ones. */
  function requestsOf(sampler: SchemaSampler, operation: Operation, path: string, seed: number) {
    const parameters = operation.parameters ?? [];
    const media = operation.requestBody?.content?.['application/json'];
    // a required parameter the document gives no example for is drawn from its schema
    const exampleValue = (parameter: (typeof parameters)[number]) =>
      parameter.example ??
      sampler.example(parameter.schema ?? {}) ??
      (parameter.required ? sampler.samples(parameter.schema ?? {}, 1, seed)[0] : undefined);
    const build = (pick: (parameter: (typeof parameters)[number], i: number) => unknown, body: unknown, kind: string) => {
      let url = path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = {};
      parameters.forEach((parameter, i) => {
        const value = pick(parameter, i);
        if (value === undefined) return;
        if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
        if (parameter.in === 'query') query.set(parameter.name, String(value));
        if (parameter.in === 'header') headers[parameter.name.toLowerCase()] = String(value);
      });
      const search = query.toString();
      return { kind, url: search ? `${url}?${search}` : url, headers, body };
    };
    const requests = [];
    const named = Object.entries(media?.examples ?? {});
    const bodies: Array<[string, unknown]> = named.length
      ? named.map(([name, example]) => [`example ${name}`, example.value])
      : [['example', media?.schema ? sampler.example(media.schema) : undefined]];
    for (const [kind, body] of bodies) {
      requests.push(
        build((parameter) => (parameter.required || parameter.in !== 'header' ? exampleValue(parameter) : undefined), body, kind),
      );
    }
    for (let n = 0; n < GENERATED_PER_OPERATION; n++) {
      const values = parameters.map((parameter, i) => {
        // optional headers (an Idempotency-Key…) on the second generated request only
        const skip = parameter.in === 'header' ? n === 0 : ISSUED_BY_THE_API.has(parameter.name) || (seed + n + i) % 2 === 0;
        if (!parameter.required && skip) return undefined;
        return sampler.samples(parameter.schema ?? { type: 'string' }, 1, seed + n * 31 + i)[0];
      });
      const body = media?.schema ? sampler.samples(media.schema, 1, seed + n)[0] : undefined;
      requests.push(build((_parameter, i) => values[i], body, 'generated'));
    }
    return requests;
  }

  it("the ledger's document states what its intent routes require, and that operator routes need both credentials", () => {
    const ledger = targets.find((t) => t.name === 'ledger-wallets')!.document;
    const schemas = ledger.components!.schemas!;
    expect(schemas.CreateIntentDto).toMatchObject({ additionalProperties: false });
    expect(schemas.CreateIntentDto.required).toEqual(expect.arrayContaining(['idempotencyKey', 'type', 'actor', 'amount', 'currency']));
    expect(Object.keys(schemas.CreateIntentDto.properties!)).toEqual(expect.arrayContaining(['fee', 'qrToken', 'requiresOtp', 'metadata']));
    expect(schemas.TransitionIntentDto.required).toEqual(expect.arrayContaining(['toStatus', 'actor']));
    expect(schemas.TransitionIntentDto.properties!.executionContext).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/ExecutionContextDto' }],
    });
    expect(schemas.ActorDto).toMatchObject({ required: ['id'], additionalProperties: false });
    const corrections = ledger.paths['/v1/internal/corrections'].post;
    expect(corrections.security).toEqual([{ serviceKey: [], bearer: [] }]);
  });

  it('every path parameter says its shape: a UUID, a pattern, an enum or an integer, never any string', () => {
    const untyped = targets.flatMap((target) =>
      Object.entries(target.document.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.has(method))
          .flatMap(([method, operation]) =>
            (operation.parameters ?? [])
              .filter((parameter) => parameter.in === 'path')
              .filter(({ schema }) => !schema?.format && !schema?.pattern && !schema?.enum && schema?.type !== 'integer')
              .map((parameter) => `${target.name} ${method.toUpperCase()} ${path}: ${parameter.name}`),
          ),
      ),
    );
    expect(targets.length).toBe(6);
    expect(untyped).toEqual([]);
  });

  // A documented path the server no longer serves must count as unreached: this holds isRouteMiss
  // to what each service (and the gateway, for itself and what it proxies) really answers.
  it('recognises every service’s answer to a path it does not serve as a route miss', async () => {
    const misses = await Promise.all(
      targets.flatMap((target) =>
        (target.name === 'public' ? ['/api/no-such-route', '/api/auth/no-such-route'] : ['/no-such-route']).map(async (path) => {
          const answer = await send(target, 'get', path, {}, undefined);
          return `${target.name} ${path}: ${answer.status} ${isRouteMiss(answer) ? 'route miss' : answer.text.slice(0, 120)}`;
        }),
      ),
    );
    expect(misses.filter((line) => !line.endsWith('route miss'))).toEqual([]);
    expect(misses).toHaveLength(7);
  });

  it.each(['public', 'orchestrator', 'auth', 'ledger-wallets', 'partners', 'webhook-dispatcher'])(
    'the %s document: examples accepted, generated requests past validation, every answer documented',
    async (name) => {
      const target = targets.find((t) => t.name === name)!;
      // Every document is tried as a new client would: with the per-phone budgets of auth's throttles
      // unspent. The public and auth documents share auth and its example phone, and the public
      // one (send-otp LOGIN and INTENT, reset-pin/request) spends the 3 sends in 10 minutes that
      // phone has, so the auth document's own send-otp examples met 429 RATE_LIMITED. Per-address
      // budgets are not shared: the other documents' calls come from addresses of their own (headersFor).
      await deleteRedisKeys(`${p.redis.prefix}:auth:rl:*:phone:*`);
      const sampler = new SchemaSampler(target.document.components ?? {});
      const checker = new AnswerChecker(target.document);
      const outside: string[] = [];
      const refusedExamples: string[] = [];
      const refusedGenerated: string[] = [];
      const outcomes: Outcome[] = [];
      const operations = Object.entries(target.document.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.has(method) && !target.skip?.(path, method))
          .map(([method, operation]) => ({ path, method, operation })),
      );
      await inPool(operations, CONCURRENCY, async ({ path, method, operation }) => {
        const key = `${name} ${method.toUpperCase()} ${path}`;
        const outcome: Outcome = { key, reached: false, answers: [] };
        for (const request of requestsOf(sampler, operation, path, SEED + operations.findIndex((o) => o.operation === operation))) {
          const headers = { ...request.headers, ...headersFor(target, operation, method, path, request.url) };
          const answer = await send(target, method, request.url, headers, request.body);
          const error = errorBodyOf(answer);
          const code = error.code;
          const summary = `${request.kind} ${method.toUpperCase()} ${request.url} ${JSON.stringify(request.body) ?? ''} → ${answer.status} ${code ?? ''}`;
          outcome.answers.push(summary);
          outside.push(...checker.check(operation, answer).map((problem) => `${key}: ${problem}`));
          if (reachedPastValidation(operation, answer)) outcome.reached = true;
          if (code === 'VALIDATION_ERROR') {
            const detail = `${summary}: ${answer.text.slice(0, 200)}`;
            if (request.kind.startsWith('example')) refusedExamples.push(`${key}: ${detail}`);
            else if (!excusedByRule(crossFieldRule(method, path), error)) refusedGenerated.push(`${key}: ${detail}`);
          }
        }
        outcomes.push(outcome);
      });
      const unreached = outcomes.filter((o) => !o.reached && !(o.key in EXCLUDED)).map((o) => `${o.key}\n    ${o.answers.join('\n    ')}`);
      expect(outcomes.length).toBeGreaterThan(0);
      expect({ outside, refusedExamples, refusedGenerated, unreached }).toEqual({
        outside: [],
        refusedExamples: [],
        refusedGenerated: [],
        unreached: [],
      });
    },
    120_000,
  );
});
