import { INTENT_STATUSES, type IntentStatus, RELEASING_STATUSES, TERMINAL_STATUSES } from '@mm/contracts';

// The statuses are the contract's (libs/contracts intents.ts): the orchestrator reads the same list.
export { ACTIVE_STATUSES, INTENT_STATUSES, type IntentStatus, RELEASING_STATUSES, TERMINAL_STATUSES } from '@mm/contracts';

const FORWARD: Record<string, { to: IntentStatus; event: string; otp?: boolean }[]> = {
  CREATED: [
    { to: 'OTP_SENT', event: 'otp_sent', otp: true },
    { to: 'PIN_VERIFIED', event: 'pin_ok', otp: false },
  ],
  OTP_SENT: [{ to: 'OTP_VERIFIED', event: 'otp_ok' }],
  OTP_VERIFIED: [{ to: 'PIN_VERIFIED', event: 'pin_ok' }],
  PIN_VERIFIED: [{ to: 'SUCCEEDED', event: 'transaction_completed' }],
};

const ENDING_EVENTS: Record<string, string> = { FAILED: 'transaction_failed', EXPIRED: 'intent_expired', CANCELED: 'intent_canceled' };

/**
 * The business event name of a move, or null when the move is not allowed. Terminal states are
 * final; FAILED, EXPIRED and CANCELED are reachable from every non-terminal state, not only from
 * CREATED (docs/ledger.md "Deliberate deviations, and why": an intent stuck in OTP_SENT must be able
 * to end and release its frozen amount too). The OTP branch is taken only when the intent requires
 * an OTP, the direct CREATED → PIN_VERIFIED only when it does not.
 */
export function transitionEvent(from: IntentStatus, to: IntentStatus, requiresOtp: boolean): string | null {
  if (TERMINAL_STATUSES.includes(from)) return null;
  if (RELEASING_STATUSES.includes(to)) return ENDING_EVENTS[to];
  const move = FORWARD[from]?.find((m) => m.to === to);
  if (!move) return null;
  if (move.otp !== undefined && move.otp !== requiresOtp) return null;
  return move.event;
}

/**
 * The statuses an intent may be confirmed (moved to SUCCEEDED) from, as the confirm's database
 * function receives them (migration 1764300000000). It does not read `requires_otp`: the move to
 * SUCCEEDED must not depend on it, which this checks when the module loads.
 */
export const CONFIRMABLE_STATUSES: readonly IntentStatus[] = (() => {
  const withOtp = INTENT_STATUSES.filter((s) => transitionEvent(s, 'SUCCEEDED', true) !== null);
  const withoutOtp = INTENT_STATUSES.filter((s) => transitionEvent(s, 'SUCCEEDED', false) !== null);
  if (withOtp.join() !== withoutOtp.join())
    throw new Error('the move to SUCCEEDED depends on requires_otp: the confirm function must read it');
  return withOtp;
})();
