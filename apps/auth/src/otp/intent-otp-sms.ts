import type { IntentOtpFacts } from '@mm/contracts';

/**
 * The SMS of an intent's code. The customer reads this code out to the agent, so the text says
 * what that agrees to (a cash withdrawal, the amount, the agent) instead of "never share it". The
 * code comes first, and the amount is grouped by thousands, so no other run of six digits reads
 * like a code. Short enough for one SMS (160 GSM-7 characters) with the longest amounts.
 */
export function intentOtpSms(code: string, facts: IntentOtpFacts, validMinutes: number): string {
  const amount = `${groupThousands(facts.amount)} ${facts.currency}`;
  const agent = facts.agentCode ? `agent ${facts.agentCode}` : 'an agent';
  return `${code} is your code to withdraw ${amount} in cash with ${agent}. Give it to the agent only if you agree. Valid ${validMinutes} min.`;
}

function groupThousands(amount: number): string {
  return String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}
