/**
 * What a client of the public API does in a fault case, through the orchestrator's public listener:
 * register (a saga in the orchestrator), sign in, and pay with public intents (create → verify-pin →
 * confirm). Every write is retried the way a well-behaved app retries it: the same request (same
 * Idempotency-Key, same intent) until a definite answer.
 */
import { randomUUID } from 'node:crypto';
import { type Answer, type HttpCaller, untilDefinite } from './ledger-load';

export const PIN = '2580';
const PERSON = { lastName: 'Faults', countryCode: 'CM' };

import { newPhone } from '../../support/phones';

export { newPhone };

export type RegistrationKind = 'customer' | 'merchant' | 'agent';

const REGISTRATION_PATH: Record<RegistrationKind, string> = {
  customer: '/api/orchestrator/auth/register',
  merchant: '/api/orchestrator/auth/register/merchant',
  agent: '/api/orchestrator/auth/register/agent',
};

export interface PlannedRegistration {
  n: number;
  kind: RegistrationKind;
  phone: string;
  /** the Idempotency-Key every try of this registration carries */
  key: string;
  body: Record<string, unknown>;
}

export function planRegistration(n: number, kind: RegistrationKind): PlannedRegistration {
  const phone = newPhone();
  const person = { phone, pin: PIN, firstName: `Fault${n}`, ...PERSON };
  const body = kind === 'merchant' ? { ...person, businessName: `Boutique ${n}`, category: 'RETAIL' } : person;
  return { n, kind, phone, key: randomUUID(), body };
}

export interface RegistrationOutcome {
  plan: PlannedRegistration;
  /** the 201's body */
  registered?: Record<string, unknown>;
  /** the last answer when it was not a 201 */
  failed?: string;
}

/** One registration, retried with its key until a definite answer (201, or a refusal that is not about being interrupted). */
export async function runRegistration(caller: HttpCaller, plan: PlannedRegistration, deadline: number): Promise<RegistrationOutcome> {
  const answer = await untilDefinite(
    () => caller.call('POST', REGISTRATION_PATH[plan.kind], plan.body, { 'idempotency-key': plan.key }),
    deadline,
  );
  if (answer.kind === 'answer' && answer.status === 201) return { plan, registered: answer.body };
  return { plan, failed: answer.kind === 'none' ? answer.error : `${answer.status} ${String(answer.body.code)}` };
}

/** The same registration sent again with its key: the stored answer of the run that succeeded. */
export function replayRegistration(caller: HttpCaller, plan: PlannedRegistration): Promise<Answer> {
  return caller.call('POST', REGISTRATION_PATH[plan.kind], plan.body, { 'idempotency-key': plan.key });
}

/** Runs `items` with `concurrency` workers; `onProgress` sees the number done after each one. */
export async function inParallel<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
  onProgress: (done: number) => void = () => undefined,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]);
        onProgress(++done);
      }
    }),
  );
  return results;
}

export async function login(caller: HttpCaller, phone: string, pin = PIN): Promise<string> {
  const res = await caller.call('POST', '/api/auth/login', { phone, pin });
  if (res.kind !== 'answer' || res.status !== 200) throw new Error(`login ${phone}: ${JSON.stringify(res)}`);
  return String(res.body.token);
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A customer registered through the real workflow, signed in, its XAF account funded at the ledger. */
export interface Customer {
  phone: string;
  userId: string;
  token: string;
  account: string;
}

/** `ledger` funds the accounts: it must present an operator's key (the test-funding route is an operators' one). */
export async function registerCustomers(gateway: HttpCaller, ledger: HttpCaller, count: number, funding: number): Promise<Customer[]> {
  const customers: Customer[] = [];
  for (let n = 0; n < count; n++) {
    const plan = planRegistration(n, 'customer');
    const reg = await gateway.call('POST', REGISTRATION_PATH.customer, plan.body, { 'idempotency-key': plan.key });
    if (reg.kind !== 'answer' || reg.status !== 201) throw new Error(`register: ${JSON.stringify(reg)}`);
    const account = (reg.body.accounts as Record<string, string>).XAF;
    // The test-funding flow of the legacy adjustment (NODE_ENV=test), as the e2e journeys fund customers.
    const funded = await ledger.call('PUT', `/v1/accounts/${account}/balance/add`, {
      amount: funding,
      reason: 'fault test funding',
      createdBy: 'fault-test',
    });
    if (funded.kind !== 'answer' || funded.status !== 200) throw new Error(`funding: ${JSON.stringify(funded)}`);
    customers.push({ phone: plan.phone, userId: String(reg.body.userId), token: await login(gateway, plan.phone), account });
  }
  return customers;
}

/** One public transfer of the plan: payer → payee, with the key its creation carries. */
export interface PlannedPayment {
  n: number;
  payer: Customer;
  payee: Customer;
  amount: number;
  key: string;
}

/** `count` transfers in a ring of customers: each customer initiates ⌈count / customers⌉ at most (risk velocity). */
export function planPayments(customers: Customer[], count: number): PlannedPayment[] {
  return Array.from({ length: count }, (_, n) => {
    const payer = customers[n % customers.length];
    const step = 1 + (Math.floor(n / customers.length) % (customers.length - 1));
    return { n, payer, payee: customers[(n + step) % customers.length], amount: 100 + (n % 9) * 25, key: randomUUID() };
  });
}

export function createBody(p: PlannedPayment) {
  return { type: 'TRANSFER', amount: p.amount, clientPhone: p.payee.phone, idempotencyKey: p.key };
}

/** Create and verify-pin, without faults (what is under test comes after): answers the intent id. */
export async function prepareIntent(gateway: HttpCaller, p: PlannedPayment): Promise<{ intentId: string; fee: number }> {
  const created = await gateway.call('POST', '/api/v1/intents', createBody(p), bearer(p.payer.token));
  if (created.kind !== 'answer' || created.status !== 201) throw new Error(`create: ${JSON.stringify(created)}`);
  const intentId = String(created.body.intentId);
  const pinned = await gateway.call('POST', `/api/v1/intents/${intentId}/verify-pin`, { pin: PIN }, bearer(p.payer.token));
  if (pinned.kind !== 'answer' || pinned.status !== 200) throw new Error(`verify-pin: ${JSON.stringify(pinned)}`);
  return { intentId, fee: Number(created.body.fee) };
}

export function confirm(gateway: HttpCaller, p: PlannedPayment, intentId: string): Promise<Answer> {
  return gateway.call('POST', `/api/v1/intents/${intentId}/confirm`, undefined, bearer(p.payer.token));
}
