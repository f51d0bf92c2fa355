import type { OutboxSms } from './payment-notifier.port';
import type { PaymentIntentRecord } from './payment-intent.types';

/** 1234567 → "1 234 567" (francs have no decimals). */
export function formatAmount(amount: number, currency: string): string {
  return `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} ${currency}`;
}

/**
 * The two SMS of a successful payment: one to the payer, one to the payee (docs/mobile-api.md "Notifications": SMS
 * notifications, here through the outbox). Plain words, the reference for support, no balance
 * (it would need another ledger read and would be stale by the time the SMS arrives).
 */
export function paymentSms(intent: PaymentIntentRecord, outcome: { referenceId: string; fee: number; commission: number }): OutboxSms[] {
  const amount = formatAmount(intent.amount, intent.currency);
  const fee = outcome.fee > 0 ? ` Fee ${formatAmount(outcome.fee, intent.currency)}.` : '';
  const commission = outcome.commission > 0 ? ` Commission ${formatAmount(outcome.commission, intent.currency)}.` : '';
  const ref = ` Ref ${outcome.referenceId}.`;
  const agent = intent.agent ? `agent ${intent.agent.agentCode}` : '';
  // "Awa N." already ends a sentence: no second full stop after a name.
  const end = (text: string) => (text.endsWith('.') ? text : `${text}.`);
  let payer: string;
  let payee: string;
  switch (intent.type) {
    case 'CASH_IN':
      payer = `${end(`Cash-in of ${amount} to ${intent.payee.displayName}`)}${commission}${ref}`;
      payee = `You received ${amount} by cash-in at ${agent}.${ref}`;
      break;
    case 'CASH_OUT':
      payer = `Cash-out of ${amount} at ${agent}.${fee}${ref}`;
      payee = `${end(`Cash-out of ${amount} for ${intent.payer.displayName}`)}${commission}${ref}`;
      break;
    default:
      payer = `${end(`You paid ${amount} to ${intent.payee.displayName}`)}${fee}${ref}`;
      payee = `${end(`You received ${amount} from ${intent.payer.displayName}`)}${ref}`;
  }
  const key = intent.ledgerIntentId ?? intent.id;
  return [
    { dedupeKey: `payment:${key}:payer`, to: intent.payer.phone, body: payer },
    { dedupeKey: `payment:${key}:payee`, to: intent.payee.phone, body: payee },
  ];
}
