import { randomInt } from 'node:crypto';

/**
 * Every PIN a test registers someone with. Auth refuses a PIN that is the end of the person's own
 * phone number (PIN_POLICY_VIOLATION), so a random phone must never end in one of these: with about
 * one phone in ten thousand ending in a given PIN, a suite that draws thousands of phones would
 * otherwise fail now and then (a CI run did: +237636502580 with PIN 2580).
 */
export const TEST_PINS = ['2580', '7391', '4826', '3691', '7395', '7315', '9731', '9630', '5927'] as const;

/** A Cameroon mobile number no other test of this run uses, whose end is none of the test PINs. */
export function newPhone(): string {
  for (;;) {
    const phone = `+2376${randomInt(10_000_000, 100_000_000)}`;
    if (!TEST_PINS.some((pin) => phone.endsWith(pin))) return phone;
  }
}
