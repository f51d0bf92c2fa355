import type { RiskDocument } from './risk-document';
import type { RiskInput, RiskReason, RiskSignal } from './risk.types';

/** What the service looked up before judging (the rules themselves are pure). */
export interface RiskFacts {
  /** active blocklist entries matching a party's phone */
  blocklisted: Array<{ party: 'initiator' | 'payer' | 'payee'; entryId: string; list: string }>;
  /** operations started in the window, this one included; absent at confirm (not re-judged) */
  velocity?: { initiator: number; device?: number } | 'UNAVAILABLE';
  /** has the payer already paid this payee successfully? undefined when the rule does not apply */
  knownPayee?: boolean;
  /** the payer tier's single-operation limit in the currency, when the payer is a customer */
  payerSingleMax?: number;
}

/** Statuses are compared without case: the customer module stores `active`, others may say `ACTIVE`. */
const isActive = (party: { status: string }) => party.status.toUpperCase() === 'ACTIVE';

/** Rules in the order their reason wins: blocklist, frozen initiator, unavailable counterparty, velocity, unusual amount. */
export function judge(input: RiskInput, doc: RiskDocument, facts: RiskFacts): { signals: RiskSignal[]; reason: RiskReason | null } {
  const signals: RiskSignal[] = [];
  let reason: RiskReason | null = null;
  const reject = (why: RiskReason) => {
    reason ??= why;
  };

  // Sanctions and internal blocklists, on every party's phone.
  if (facts.blocklisted.length > 0) {
    signals.push({ rule: 'BLOCKLIST', outcome: 'REJECT', detail: { matches: facts.blocklisted } });
    reject('NOT_ALLOWED');
  } else {
    signals.push({ rule: 'BLOCKLIST', outcome: 'PASS' });
  }

  // Frozen or closed accounts take part in nothing.
  if (!isActive(input.initiator)) {
    signals.push({ rule: 'INITIATOR_STATUS', outcome: 'REJECT', detail: { kind: input.initiator.kind, status: input.initiator.status } });
    reject('ACCOUNT_FROZEN');
  } else {
    signals.push({ rule: 'INITIATOR_STATUS', outcome: 'PASS' });
  }
  const others = [input.payer, input.payee].filter((p) => p.id !== input.initiator.id);
  const inactive = others.filter((p) => !isActive(p));
  if (inactive.length > 0) {
    signals.push({
      rule: 'COUNTERPARTY_STATUS',
      outcome: 'REJECT',
      detail: { parties: inactive.map((p) => ({ kind: p.kind, id: p.id, status: p.status })) },
    });
    reject('COUNTERPARTY_UNAVAILABLE');
  } else {
    signals.push({ rule: 'COUNTERPARTY_STATUS', outcome: 'PASS' });
  }

  // Velocity: how many operations this user and this device started in the window.
  const v = doc.velocity;
  if (facts.velocity === undefined) {
    signals.push({ rule: 'VELOCITY', outcome: 'SKIPPED', detail: { why: 'attempts are judged when they are made (create)' } });
  } else if (facts.velocity === 'UNAVAILABLE') {
    // Fail open: the counters are a throttle on top of the other rules, not a reason to stop all payments.
    signals.push({ rule: 'VELOCITY', outcome: 'UNAVAILABLE' });
  } else {
    const max = { CUSTOMER: v.maxPerCustomer, AGENT: v.maxPerAgent, MERCHANT: v.maxPerMerchant }[input.initiator.kind];
    const userOver = facts.velocity.initiator > max;
    const deviceOver = facts.velocity.device !== undefined && facts.velocity.device > v.maxPerDevice;
    signals.push({
      rule: 'VELOCITY',
      outcome: userOver || deviceOver ? 'REJECT' : 'PASS',
      detail: {
        windowSeconds: v.windowSeconds,
        initiator: facts.velocity.initiator,
        max,
        device: facts.velocity.device ?? null,
        maxPerDevice: v.maxPerDevice,
      },
    });
    if (userOver || deviceOver) reject('VELOCITY');
  }

  // Amount against the payer's tier, and whether the payee is new to the payer: a first payment to
  // someone that comes close to the tier's ceiling is the shape of an account takeover draining
  // into a mule; either signal alone is ordinary.
  const highAt =
    facts.payerSingleMax === undefined ? undefined : Math.floor((facts.payerSingleMax * doc.newRecipientHighAmountPercent) / 100);
  const high = highAt !== undefined && input.amount >= highAt;
  signals.push({
    rule: 'AMOUNT_VS_TIER',
    outcome: high ? 'FLAG' : highAt === undefined ? 'SKIPPED' : 'PASS',
    detail: { threshold: highAt ?? null },
  });
  if (facts.knownPayee === undefined) {
    signals.push({ rule: 'NEW_RECIPIENT', outcome: 'SKIPPED' });
  } else {
    signals.push({ rule: 'NEW_RECIPIENT', outcome: facts.knownPayee ? 'PASS' : 'FLAG' });
    if (!facts.knownPayee && high) {
      signals.push({ rule: 'NEW_RECIPIENT_HIGH_AMOUNT', outcome: 'REJECT' });
      reject('UNUSUAL_AMOUNT');
    }
  }
  return { signals, reason };
}
