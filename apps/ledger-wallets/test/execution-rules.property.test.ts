import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { propertyTest } from '../../../test/support/property-deadline';
import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, invariants, startLedger } from './ledger-harness';

/**
 * The account rules of docs/ledger.md "Execution rules", written here independently of the ledger's
 * code: a model of which execution contexts are lawful. fast-check generates contexts biased
 * towards the lawful ones (so both sides are exercised) and every one is sent through create →
 * PIN_VERIFIED → SUCCEEDED; the ledger must accept exactly the contexts the model accepts, and
 * refuse the others with 422.
 */
type Kind =
  'customer' | 'merchant' | 'agent' | 'agentCommission' | 'otherAgentCommission' | 'systemCommission' | 'treasury' | 'fee' | 'suspense';
const KINDS: Kind[] = [
  'customer',
  'merchant',
  'agent',
  'agentCommission',
  'otherAgentCommission',
  'systemCommission',
  'treasury',
  'fee',
  'suspense',
];
type IntentType = 'TRANSFER' | 'CASH_IN' | 'CASH_OUT';

/**
 * Enough cases for every branch to be seen more than a few times (checked below). A run makes at
 * most seven requests (create, PIN, two balances, confirm, two balances): 41 s for all 120 on a
 * 2-core machine at load average 15, so each run is allowed 2 s.
 */
const WORK = { runs: 120, perRunMs: 2_000 };

const SIDES: Record<IntentType, { source: Kind[]; destination: Kind[] }> = {
  TRANSFER: { source: ['customer', 'merchant'], destination: ['customer', 'merchant'] },
  CASH_IN: { source: ['agent'], destination: ['customer', 'merchant'] },
  CASH_OUT: { source: ['customer', 'merchant'], destination: ['agent'] },
};

interface Case {
  type: IntentType;
  source: Kind;
  destination: Kind;
  fee: number;
  feeTo: Kind | 'default';
  commission: number;
  commissionFrom: Kind | 'default';
  commissionTo: Kind;
  idempotent: boolean;
}

/** Picks from the lawful set most of the time, from everything otherwise. */
const biased = (lawful: Kind[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...lawful) }, { weight: 1, arbitrary: fc.constantFrom(...KINDS) });

const caseArb: fc.Arbitrary<Case> = fc.constantFrom<IntentType>('TRANSFER', 'CASH_IN', 'CASH_OUT').chain((type) =>
  fc.record({
    type: fc.constant(type),
    source: biased(SIDES[type].source),
    destination: biased(SIDES[type].destination),
    fee: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 })),
    feeTo: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom<Kind | 'default'>('default', 'fee') },
      { weight: 1, arbitrary: fc.constantFrom(...KINDS) },
    ),
    commission: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })),
    commissionFrom: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom<Kind | 'default'>('default', 'treasury') },
      { weight: 1, arbitrary: fc.constantFrom(...KINDS) },
    ),
    commissionTo: biased(['agentCommission']),
    idempotent: fc.boolean(),
  }),
);

/** The model: undefined when the context is lawful, else the stage that refuses it. */
function refusal(c: Case): 'create' | 'execute' | undefined {
  if (c.source === c.destination) return 'create';
  if (!SIDES[c.type].source.includes(c.source) || !SIDES[c.type].destination.includes(c.destination)) return 'create';
  if (c.fee > 0 && c.feeTo !== 'default' && c.feeTo !== 'fee') return 'execute';
  if (c.commission > 0) {
    if (c.type === 'TRANSFER') return 'execute';
    if (c.commissionFrom !== 'default' && c.commissionFrom !== 'treasury') return 'execute';
    // only the commission account in the wallet of the agent whose float the operation uses
    if (c.commissionTo !== 'agentCommission') return 'execute';
  }
  return undefined;
}

describe('ledger: execution contexts follow the documented account rules (fast-check)', () => {
  let h: Harness;
  let accounts: Record<Kind, string>;

  beforeAll(async () => {
    h = await startLedger();
    const wallet = async (ownerType: string) => {
      const res = await h.call('POST', '/v1/internal/wallets', { ownerType, ownerId: randomUUID(), currencies: ['XAF'] });
      return (type: string) => res.body.accounts.find((a: { accountType: string }) => a.accountType === type).id as string;
    };
    const agent = await wallet('AGENT');
    const otherAgent = await wallet('AGENT');
    const tech = await h.call('GET', '/v1/internal/technical-accounts?currency=XAF');
    const technical = (type: string) => tech.body.find((a: { accountType: string }) => a.accountType === type).id as string;
    accounts = {
      customer: await fundedAccount(h, 1_000_000),
      merchant: await fundedAccount(h, 1_000_000, 'XAF', 'MERCHANT'),
      agent: agent('agent'),
      agentCommission: agent('agent_commission'),
      otherAgentCommission: otherAgent('agent_commission'),
      systemCommission: technical('agent_commission'),
      treasury: technical('treasury'),
      fee: technical('fee_collection'),
      suspense: technical('suspense'),
    };
    const fund = await h.call('PUT', `/v1/accounts/${accounts.agent}/balance/add`, {
      amount: 1_000_000,
      reason: 'float',
      createdBy: 'test',
    });
    expect(fund.status).toBe(200);
  });
  afterAll(() => h.close());

  propertyTest('accepts exactly the lawful contexts and refuses the others with a 422 and a stable code', WORK, async () => {
    const seen = { accepted: 0, refusedAtCreate: 0, refusedAtExecute: 0 };
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const expected = refusal(c);
        const src = accounts[c.source];
        const dst = accounts[c.destination];
        const created = await h.call('POST', '/v1/internal/intents', intentBody(src, dst, 100, { type: c.type, fee: c.fee }));
        if (expected === 'create') {
          seen.refusedAtCreate++;
          expect(created.status).toBe(c.source === c.destination ? 400 : 422);
          expect(created.body.code).toBe(c.source === c.destination ? 'SAME_ACCOUNT' : 'ACCOUNT_TYPE_NOT_ALLOWED');
          return;
        }
        expect(created.status).toBe(201);
        const id = created.body.intentId as string;
        expect(
          (await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'p' } })).status,
        ).toBe(200);

        const before = {
          fee: (await balanceOf(h, accounts.fee)).balance,
          to: (await balanceOf(h, accounts[c.commissionTo])).balance,
        };
        const executionContext = contextFor(src, dst, 100, {
          ...(c.fee > 0 ? { fee: { amount: c.fee, ...(c.feeTo === 'default' ? {} : { accountId: accounts[c.feeTo] }) } } : {}),
          ...(c.commission > 0
            ? {
                commission: {
                  amount: c.commission,
                  accountId: accounts[c.commissionTo],
                  ...(c.commissionFrom === 'default' ? {} : { fromAccountId: accounts[c.commissionFrom] }),
                },
              }
            : {}),
        });
        const done = await h.call(
          'POST',
          `/v1/internal/intents/${id}/transition`,
          { toStatus: 'SUCCEEDED', actor: { id: 'p' }, executionContext },
          c.idempotent ? { 'x-idempotency-key': randomUUID() } : {},
        );
        if (expected === 'execute') {
          seen.refusedAtExecute++;
          expect(done.status).toBe(422);
          expect(['FEE_ACCOUNT_NOT_ALLOWED', 'COMMISSION_SOURCE_NOT_ALLOWED', 'COMMISSION_NOT_ALLOWED']).toContain(done.body.code);
          // nothing moved: the intent is still waiting and can be released
          const cancel = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'CANCELED', actor: { id: 'p' } });
          expect(cancel.status).toBe(200);
          return;
        }
        seen.accepted++;
        expect(done.status).toBe(200);
        expect((await balanceOf(h, accounts.fee)).balance).toBe(before.fee + c.fee);
        if (c.commission > 0) expect((await balanceOf(h, accounts[c.commissionTo])).balance).toBe(before.to + c.commission);
      }),
      { numRuns: WORK.runs },
    );
    // the generator must exercise every branch, or the property proves little
    expect(seen.accepted).toBeGreaterThan(10);
    expect(seen.refusedAtCreate).toBeGreaterThan(5);
    expect(seen.refusedAtExecute).toBeGreaterThan(5);

    const inv = await invariants(h.admin);
    expect(inv).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
  });

  it('refuses the drain of a customer wallet into an agent commission (the reported hole)', async () => {
    const created = await h.call('POST', '/v1/internal/intents', intentBody(accounts.customer, accounts.agent, 100, { type: 'CASH_OUT' }));
    const id = created.body.intentId as string;
    await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'p' } });
    const before = await balanceOf(h, accounts.customer);
    const drain = await h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'p' },
      executionContext: contextFor(accounts.customer, accounts.agent, 100, {
        // within the commission's bounds (not above the amount): the source account is what is refused
        commission: { amount: 100, accountId: accounts.agentCommission, fromAccountId: accounts.customer },
      }),
    });
    expect(drain.status).toBe(422);
    expect(drain.body.code).toBe('COMMISSION_SOURCE_NOT_ALLOWED');
    expect(await balanceOf(h, accounts.customer)).toEqual(before);
  });
});
