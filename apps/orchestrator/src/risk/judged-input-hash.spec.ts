import { requestHash } from '../common/canonical-hash';
import { judgedInputHash } from './risk.service';
import type { RiskInput } from './risk.types';

describe('judgedInputHash: what makes two risk judgements the same request', () => {
  const input: RiskInput = {
    stage: 'CREATE',
    operationId: 'k-1',
    type: 'TRANSFER',
    amount: 5_000,
    currency: 'XAF',
    initiator: { id: 'u1', kind: 'CUSTOMER', phone: '+237690000001', status: 'ACTIVE', kycTier: 'TIER_1' },
    payer: { id: 'u1', kind: 'CUSTOMER', phone: '+237690000001', status: 'ACTIVE', kycTier: 'TIER_1' },
    payee: { id: 'u2', kind: 'CUSTOMER', phone: '+237690000002', status: 'ACTIVE', kycTier: 'TIER_1' },
    deviceId: 'device-1',
  };

  it("is the intents' canonical request hash of type, amount, currency and the three parties' ids", () => {
    expect(judgedInputHash(input)).toBe(
      requestHash({ payee: 'u2', payer: 'u1', initiator: 'u1', currency: 'XAF', amount: 5_000, type: 'TRANSFER' }),
    );
  });

  it('ignores the stage (a key column of the decision), the facts read at judgement time and the device', () => {
    const base = judgedInputHash(input);
    expect(judgedInputHash({ ...input, stage: 'CONFIRM', intentId: 'i-1' })).toBe(base);
    expect(judgedInputHash({ ...input, payer: { ...input.payer, status: 'FROZEN', kycTier: 'TIER_2' }, deviceId: undefined })).toBe(base);
  });

  it('changes with the amount, the currency or any party', () => {
    const base = judgedInputHash(input);
    expect(judgedInputHash({ ...input, amount: 5_001 })).not.toBe(base);
    expect(judgedInputHash({ ...input, currency: 'XOF' })).not.toBe(base);
    expect(judgedInputHash({ ...input, payee: { ...input.payee, id: 'u3' } })).not.toBe(base);
    // The payer and the payee are told apart, not just collected.
    expect(judgedInputHash({ ...input, payer: input.payee, payee: input.payer })).not.toBe(base);
  });
});
