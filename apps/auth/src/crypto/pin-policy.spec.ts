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

  it('accepts most random PINs (the rule is not so strict that users cannot pick one)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), (n) => {
        if (pinRuleViolation(String(n).padStart(6, '0')) === undefined) accepted++;
      }),
      { numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(990);
  });
});
