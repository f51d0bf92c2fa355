import type { PaymentIntentRecord } from './payment-intent.types';
import { formatAmount, paymentSms } from './payment-sms';

const base = {
  ledgerIntentId: 'intent-1',
  amount: 25_000,
  currency: 'XAF',
  payer: { displayName: 'Awa N.', phone: '+237690000001' },
  payee: { displayName: 'Boulangerie du Centre', phone: '+237690000002' },
  agent: { agentCode: 'AG00000001' },
} as unknown as PaymentIntentRecord;

describe('payment SMS', () => {
  it('formats francs with a space every three digits', () => {
    expect([formatAmount(5, 'XAF'), formatAmount(25_000, 'XAF'), formatAmount(1_234_567, 'XOF')]).toEqual([
      '5 XAF',
      '25 000 XAF',
      '1 234 567 XOF',
    ]);
  });

  it('a transfer: the payer sees the fee, the payee does not; one full stop after a name ending in one', () => {
    const [payer, payee] = paymentSms(
      { ...base, type: 'TRANSFER', payee: { ...base.payer, phone: '+237690000002' } } as PaymentIntentRecord,
      {
        referenceId: 'MMPTX2611220A1B2C3',
        fee: 250,
        commission: 0,
      },
    );
    expect(payer).toEqual({
      dedupeKey: 'payment:intent-1:payer',
      to: '+237690000001',
      body: 'You paid 25 000 XAF to Awa N. Fee 250 XAF. Ref MMPTX2611220A1B2C3.',
    });
    expect(payee.body).toBe('You received 25 000 XAF from Awa N. Ref MMPTX2611220A1B2C3.');
    expect(payee.dedupeKey).toBe('payment:intent-1:payee');
  });

  it('cash operations name the agent to the customer and the commission to the agent', () => {
    const cashIn = paymentSms({ ...base, type: 'CASH_IN', payee: base.payer } as PaymentIntentRecord, {
      referenceId: 'R',
      fee: 0,
      commission: 125,
    });
    expect(cashIn.map((m) => m.body)).toEqual([
      'Cash-in of 25 000 XAF to Awa N. Commission 125 XAF. Ref R.',
      'You received 25 000 XAF by cash-in at agent AG00000001. Ref R.',
    ]);
    const cashOut = paymentSms({ ...base, type: 'CASH_OUT' } as PaymentIntentRecord, { referenceId: 'R', fee: 500, commission: 200 });
    expect(cashOut.map((m) => m.body)).toEqual([
      'Cash-out of 25 000 XAF at agent AG00000001. Fee 500 XAF. Ref R.',
      'Cash-out of 25 000 XAF for Awa N. Commission 200 XAF. Ref R.',
    ]);
  });
});
