import { INTENT_STATUSES, type IntentStatus, TERMINAL_STATUSES, transitionEvent } from './intent-state-machine';

describe('intent state machine', () => {
  it.each([
    ['CREATED', 'OTP_SENT', true, 'otp_sent'],
    ['OTP_SENT', 'OTP_VERIFIED', true, 'otp_ok'],
    ['OTP_VERIFIED', 'PIN_VERIFIED', true, 'pin_ok'],
    ['CREATED', 'PIN_VERIFIED', false, 'pin_ok'],
    ['PIN_VERIFIED', 'SUCCEEDED', false, 'transaction_completed'],
    ['CREATED', 'CANCELED', false, 'intent_canceled'],
    ['OTP_SENT', 'EXPIRED', true, 'intent_expired'],
    ['PIN_VERIFIED', 'FAILED', false, 'transaction_failed'],
  ] as const)('%s → %s (otp %p) is %s', (from, to, otp, event) => {
    expect(transitionEvent(from, to, otp)).toBe(event);
  });

  it.each([
    ['CREATED', 'SUCCEEDED', false],
    ['CREATED', 'OTP_SENT', false],
    ['CREATED', 'PIN_VERIFIED', true],
    ['OTP_SENT', 'PIN_VERIFIED', true],
    ['CREATED', 'CREATED', false],
    ['PIN_VERIFIED', 'OTP_SENT', false],
  ] as const)('%s → %s (otp %p) is refused', (from, to, otp) => {
    expect(transitionEvent(from, to, otp)).toBeNull();
  });

  it('never leaves a terminal state', () => {
    for (const from of TERMINAL_STATUSES) {
      for (const to of INTENT_STATUSES as readonly IntentStatus[]) {
        expect(transitionEvent(from, to, true)).toBeNull();
        expect(transitionEvent(from, to, false)).toBeNull();
      }
    }
  });
});
