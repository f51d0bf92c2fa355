import fc from 'fast-check';
import { propertyTest } from '../../../test/support/property-deadline';
import { ExpirySweeper } from '../src/intents/expiry-sweeper.service';
import { type Harness, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

type Status = 'CREATED' | 'OTP_SENT' | 'OTP_VERIFIED' | 'PIN_VERIFIED' | 'SUCCEEDED' | 'FAILED' | 'EXPIRED' | 'CANCELED';
const ACTIVE: Status[] = ['CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED'];

/**
 * A run is up to 6 funding requests, then up to 18 commands (a request or a sweep, and a read of the
 * balances each) and the invariants: about 1.2 s on a 2-core machine at load average 10, so each
 * run is allowed 8 s.
 */
const WORK = { runs: 15, perRunMs: 8_000 };

type Command =
  | { kind: 'create'; src: number; dstOffset: number; amount: number; otp: boolean }
  | { kind: 'sendOtp' | 'verifyOtp' | 'verifyPin' | 'cancel'; i: number }
  | { kind: 'confirm'; i: number; fee: number }
  | { kind: 'expire' };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      src: fc.nat(2),
      dstOffset: fc.integer({ min: 1, max: 2 }),
      amount: fc.integer({ min: 1, max: 700 }),
      otp: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constantFrom('sendOtp' as const, 'verifyOtp' as const, 'verifyPin' as const), i: fc.nat(20) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('verifyPin' as const), i: fc.nat(20) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('confirm' as const), i: fc.nat(20), fee: fc.integer({ min: 0, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), i: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'expire' as const }) },
);

/** The in-memory model: predicts every accept / reject and every balance. */
interface Model {
  available: number[];
  frozen: number[];
  intents: { id: string; status: Status; src: number; dst: number; amount: number; otp: boolean }[];
}

describe('ledger: intent state machine against an in-memory model (fast-check)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  propertyTest('predicts every status code and every balance for random command sequences', WORK, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 3, maxLength: 3 }),
        fc.array(command, { minLength: 1, maxLength: 18 }),
        async (funds, commands) => {
          const accounts = [await fundedAccount(h, funds[0]), await fundedAccount(h, funds[1]), await fundedAccount(h, funds[2])];
          const m: Model = { available: [...funds], frozen: [0, 0, 0], intents: [] };
          const move = (id: string, toStatus: string, extra: object = {}) =>
            h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus, actor: { id: 'prop' }, ...extra });
          const release = (it: Model['intents'][number]) => {
            m.available[it.src] += it.amount;
            m.frozen[it.src] -= it.amount;
          };

          for (const c of commands) {
            if (c.kind === 'create') {
              const dst = (c.src + c.dstOffset) % 3;
              const res = await h.call(
                'POST',
                '/v1/internal/intents',
                intentBody(accounts[c.src], accounts[dst], c.amount, { requiresOtp: c.otp }),
              );
              if (m.available[c.src] >= c.amount) {
                expect(res.status).toBe(201);
                m.available[c.src] -= c.amount;
                m.frozen[c.src] += c.amount;
                m.intents.push({ id: res.body.intentId, status: 'CREATED', src: c.src, dst, amount: c.amount, otp: c.otp });
              } else {
                expect(res.status).toBe(422);
                expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
              }
            } else if (c.kind === 'expire') {
              await h.app.app.get(ExpirySweeper).sweep(new Date(Date.now() + 3_600_000));
              for (const it of m.intents) {
                if (ACTIVE.includes(it.status)) {
                  release(it);
                  it.status = 'EXPIRED';
                }
              }
            } else {
              if (m.intents.length === 0) continue;
              const it = m.intents[c.i % m.intents.length];
              let expected: Status | 'REJECT' | 'INSUFFICIENT' = 'REJECT';
              let res;
              let fee = 0;
              if (c.kind === 'sendOtp') {
                if (it.status === 'CREATED' && it.otp) expected = 'OTP_SENT';
                res = await move(it.id, 'OTP_SENT');
              } else if (c.kind === 'verifyOtp') {
                if (it.status === 'OTP_SENT') expected = 'OTP_VERIFIED';
                res = await move(it.id, 'OTP_VERIFIED');
              } else if (c.kind === 'verifyPin') {
                if ((it.status === 'CREATED' && !it.otp) || it.status === 'OTP_VERIFIED') expected = 'PIN_VERIFIED';
                res = await move(it.id, 'PIN_VERIFIED');
              } else if (c.kind === 'cancel') {
                if (ACTIVE.includes(it.status)) expected = 'CANCELED';
                res = await move(it.id, 'CANCELED');
              } else {
                fee = (c as { fee: number }).fee;
                if (it.status === 'PIN_VERIFIED') expected = m.available[it.src] >= fee ? 'SUCCEEDED' : 'INSUFFICIENT';
                res = await move(it.id, 'SUCCEEDED', {
                  executionContext: contextFor(accounts[it.src], accounts[it.dst], it.amount, { fee: { amount: fee } }),
                });
              }
              if (expected === 'REJECT') {
                expect(res.status).toBe(400);
                expect(res.body.code).toBe('INVALID_INTENT_TRANSITION');
              } else if (expected === 'INSUFFICIENT') {
                expect(res.status).toBe(422);
                expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
              } else {
                expect(res.status).toBe(200);
                expect(res.body.status).toBe(expected);
                if (expected === 'CANCELED') release(it);
                if (expected === 'SUCCEEDED') {
                  m.frozen[it.src] -= it.amount;
                  m.available[it.src] -= fee;
                  m.available[it.dst] += it.amount;
                }
                it.status = expected;
              }
            }
            const rows = await h.admin.query(
              `SELECT id, available_balance::int AS a, frozen_balance::int AS f FROM ledger.accounts WHERE id = ANY($1::uuid[])`,
              [accounts],
            );
            const byId = new Map(rows.rows.map((r) => [r.id, r]));
            expect(accounts.map((id) => [byId.get(id).a, byId.get(id).f])).toEqual(accounts.map((_, k) => [m.available[k], m.frozen[k]]));
          }
          const inv = await invariants(h.admin);
          expect(inv).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
          expect(inv.totals.XAF).toBe(0);
        },
      ),
      { numRuns: WORK.runs },
    );
  });
});
