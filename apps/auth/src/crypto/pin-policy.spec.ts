import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { pinRuleViolation } from './pin-policy';

describe('PIN rule', () => {
  it.each([
    '0000',
    '1111',
    '999999',
    '1234',
    '4321',
    '123456',
    '654321',
    '8901',
    '0987',
    '1212',
    '909090',
    'abcd',
    '123',
    '1234567',
    '12 4',
  ])('refuses %p', (pin) => {
    expect(pinRuleViolation(pin)).toBeDefined();
  });

  it.each(['1357', '2580', '739164', '1123', '90210'])('accepts %p', (pin) => {
    expect(pinRuleViolation(pin)).toBeUndefined();
  });

  it('refuses the last digits of the own phone number', () => {
    expect(pinRuleViolation('4827', '+237690004827')).toBeDefined();
    expect(pinRuleViolation('4827', '+237690004828')).toBeUndefined();
  });

  it('never accepts anything but 4 to 6 digits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), (s) => {
        if (pinRuleViolation(s) === undefined) expect(s).toMatch(/^\d{4,6}$/);
      }),
    );
  });

  it('accepts almost every uniformly random 6-digit PIN (the rule leaves users plenty of choice)', () => {
    // Refused 6-digit PINs: 10 repeated digits + 20 runs + ~90 repeated pairs out of 10^6.
    let accepted = 0;
    for (let i = 0; i < 1000; i++) if (pinRuleViolation(String(randomInt(0, 1_000_000)).padStart(6, '0')) === undefined) accepted++;
    expect(accepted).toBeGreaterThan(990);
  });
});
