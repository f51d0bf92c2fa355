import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type OperatorSigner,
  TEST_CHECKER,
  TEST_MAKER,
  type TestOperator,
  bearer,
  startOperatorSigner,
} from '../../../test/support/funding';
import { type Harness, type ResponseBody, startLedger } from './ledger-harness';

/**
 * Called with the raw body of every alert the ledger posts to its compliance channel; answers the
 * HTTP status to reply with (204 when it returns nothing).
 */
export type AlertHandler = (body: string) => number | void;

export interface OperatorLedgerOptions {
  /** when given, a loopback receiver stands in for compliance and the ledger sends its integrity alerts there */
  onAlert?: AlertHandler;
  /** further environment for the ledger */
  env?: Record<string, string | undefined>;
}

/** A second admin, to check what another admin made. */
export const ADMIN_2: TestOperator = { id: 'operator-admin-2', roles: ['ADMIN'] };
/** An operator whose role may neither make nor check corrections, audits or integrity checks. */
export const SUPPORT: TestOperator = { id: 'operator-support', roles: ['SUPPORT'] };

/** An alert handler that keeps every alert's JSON body in `into` (and answers 204). */
export function recordAlerts(into: Record<string, unknown>[]): AlertHandler {
  return (body) => {
    into.push(JSON.parse(body) as Record<string, unknown>);
  };
}

/** A ledger that trusts operators' access tokens, with the signer that issues them. */
export interface OperatorLedger {
  h: Harness;
  operators: OperatorSigner;
  /** the Authorization header of a fresh token signed for this operator */
  as(operator: TestOperator): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * Starts an operator-token signer (auth's key set, as the ledger sees it), optionally a compliance
 * receiver, and a ledger that checks operator tokens against that signer.
 */
export async function startOperatorLedger(options: OperatorLedgerOptions = {}): Promise<OperatorLedger> {
  const { onAlert, env = {} } = options;
  const operators = await startOperatorSigner();
  let receiver: Server | undefined;
  if (onAlert) {
    receiver = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        res.writeHead(onAlert(data) ?? 204).end();
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  }
  const h = await startLedger({
    LEDGER_CONSENT_JWKS_URL: operators.jwksUrl,
    ...(receiver ? { LEDGER_INTEGRITY_ALERT_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/compliance` } : {}),
    ...env,
  });
  operators.alsoServe(h.consent.jwksUrl);
  return {
    h,
    operators,
    as: async (operator) => bearer(await operators.token(operator)),
    async close() {
      await h.close();
      await operators.close();
      if (receiver) await new Promise((r) => receiver!.close(r));
    },
  };
}

/**
 * startOperatorLedger for a whole `describe`: started in its `beforeAll`, closed in its `afterAll`.
 * The returned object's fields are set once `beforeAll` has run.
 */
export function useOperatorLedger(options: OperatorLedgerOptions = {}): OperatorLedger {
  const fixture = {} as OperatorLedger;
  beforeAll(async () => {
    Object.assign(fixture, await startOperatorLedger(options));
  });
  afterAll(async () => {
    await fixture.close?.();
  });
  return fixture;
}

/**
 * Reverses a payment under four eyes: TEST_MAKER submits the REVERSAL, TEST_CHECKER approves it.
 * Asserts each step's status, and answers the approved correction.
 */
export async function reverseApproved(t: OperatorLedger, referenceId: string, reason = 'paid the wrong person'): Promise<ResponseBody> {
  const submitted = await t.h.call(
    'POST',
    '/v1/internal/corrections',
    { idempotencyKey: randomUUID(), kind: 'REVERSAL', referenceId, reason },
    await t.as(TEST_MAKER),
  );
  expect(submitted.status).toBe(201);
  const approved = await t.h.call('POST', `/v1/internal/corrections/${submitted.body.id}/approve`, {}, await t.as(TEST_CHECKER));
  expect(approved.status).toBe(200);
  return approved.body;
}
