import { AppException } from '@mm/errors';

/**
 * The PIN rule (documented for clients in the OpenAPI document):
 * - 4 to 6 decimal digits;
 * - not one digit repeated (`0000`, `111111`);
 * - not a run of consecutive digits up or down, wrapping 9→0 (`1234`, `654321`, `8901`);
 * - not a repeated pair (`1212`, `909090`);
 * - not the last digits of the account's own phone number.
 * Checked when a PIN is set (registration, change, reset), never at login: an existing PIN keeps working.
 */
export const PIN_FORMAT = /^\d{4,6}$/;

export function pinRuleViolation(pin: string, phone?: string): string | undefined {
  if (!PIN_FORMAT.test(pin)) return 'PIN must be 4 to 6 digits';
  const digits = [...pin].map(Number);
  if (digits.every((d) => d === digits[0])) return 'PIN must not repeat one digit';
  const steps = digits.slice(1).map((d, i) => (d - digits[i] + 10) % 10);
  if (steps.every((s) => s === 1) || steps.every((s) => s === 9)) return 'PIN must not be a run of consecutive digits';
  if (pin.length % 2 === 0 && pin === pin.slice(0, 2).repeat(pin.length / 2)) return 'PIN must not repeat a pair of digits';
  if (phone && phone.endsWith(pin)) return 'PIN must not be the end of the phone number';
  return undefined;
}

export function assertPinRule(pin: string, phone?: string): void {
  const violation = pinRuleViolation(pin, phone);
  if (violation) throw new AppException('PIN_POLICY_VIOLATION', violation);
}
