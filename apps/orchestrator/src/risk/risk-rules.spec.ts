import type { RiskDocument } from './risk-document';
import { judge } from './risk-rules';
import type { RiskInput, RiskParty } from './risk.types';

const doc: RiskDocument = {
  velocity: { windowSeconds: 600, maxPerCustomer: 3, maxPerAgent: 5, maxPerMerchant: 4, maxPerDevice: 2 },
  newRecipientHighAmountPercent: 50,
};
const party = (over: Partial<RiskParty> = {}): RiskParty => ({ id: 'p', kind: 'CUSTOMER', status: 'ACTIVE', ...over });
const input = (over: Partial<RiskInput> = {}): RiskInput => {
  const payer = party({ id: 'payer' });
  return {
    stage: 'CREATE',
    operationId: 'op',
    type: 'TRANSFER',
    amount: 1_000,
    currency: 'XAF',
    initiator: payer,
    payer,
    payee: party({ id: 'payee' }),
    ...over,
  };
};
const clean = { blocklisted: [], velocity: { initiator: 1 }, knownPayee: true, payerSingleMax: 100_000 };

describe('risk rules (pure)', () => {
  it('accepts an ordinary operation and records every rule', () => {
    const { reason, signals } = judge(input(), doc, clean);
    expect(reason).toBeNull();
    expect(signals.map((s) => `${s.rule}:${s.outcome}`)).toEqual([
      'BLOCKLIST:PASS',
      'INITIATOR_STATUS:PASS',
      'COUNTERPARTY_STATUS:PASS',
      'VELOCITY:PASS',
      'AMOUNT_VS_TIER:PASS',
      'NEW_RECIPIENT:PASS',
    ]);
  });

  it('reads statuses without case (the customer module stores lower case)', () => {
    const payer = party({ id: 'payer', status: 'active' });
    expect(judge(input({ initiator: payer, payer, payee: party({ id: 'payee', status: 'active' }) }), doc, clean).reason).toBeNull();
    expect(judge(input({ payee: party({ id: 'payee', status: 'frozen' }) }), doc, clean).reason).toBe('COUNTERPARTY_UNAVAILABLE');
  });

  it('a blocklist hit wins over every other reason (no tipping off)', () => {
    const frozen = party({ id: 'payer', status: 'FROZEN' });
    const facts = {
      ...clean,
      blocklisted: [{ party: 'initiator' as const, entryId: 'e', list: 'SANCTIONS' }],
      velocity: { initiator: 99 },
    };
    expect(judge(input({ initiator: frozen, payer: frozen }), doc, facts).reason).toBe('NOT_ALLOWED');
  });

  it('velocity limits depend on who starts the operation, and the device has its own', () => {
    expect(judge(input(), doc, { ...clean, velocity: { initiator: 3 } }).reason).toBeNull();
    expect(judge(input(), doc, { ...clean, velocity: { initiator: 4 } }).reason).toBe('VELOCITY');
    const agent = party({ id: 'agent', kind: 'AGENT' });
    expect(
      judge(input({ initiator: agent, payer: agent, type: 'CASH_IN' }), doc, { ...clean, velocity: { initiator: 5 } }).reason,
    ).toBeNull();
    expect(judge(input(), doc, { ...clean, velocity: { initiator: 1, device: 3 } }).reason).toBe('VELOCITY');
  });

  it('new recipient and high amount refuse only together, from the threshold up', () => {
    // 50 % of 100 000 = 50 000
    expect(judge(input({ amount: 49_999 }), doc, { ...clean, knownPayee: false }).reason).toBeNull();
    expect(judge(input({ amount: 50_000 }), doc, { ...clean, knownPayee: false }).reason).toBe('UNUSUAL_AMOUNT');
    expect(judge(input({ amount: 50_000 }), doc, { ...clean, knownPayee: true }).reason).toBeNull();
  });
});
