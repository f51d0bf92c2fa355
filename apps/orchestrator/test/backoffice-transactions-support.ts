import { StaffSignIn, TEST_ADMIN_TOTP_SECRET, devOutboxReader } from '../../../test/support/staff-sign-in';
import type { Answer } from './platform-harness';

type Call = (method: string, path: string, options: { body?: unknown; token?: string }) => Promise<Answer>;

/** The bootstrap administrator of the test harnesses (its TOTP secret is the harnesses' TEST_ADMIN_TOTP_SECRET). */
const ADMIN_PHONE = '+237699000001';

/**
 * Signs anyone in through the gateway, answering staff's second factor with the harnesses' own
 * StaffSignIn (the administrator's secret known, other staff enrolled at their first sign-in with
 * the SMS code read from auth's development outbox).
 */
export function staffSignIn(call: Call): (phone: string, pin: string) => Promise<string> {
  const staff = new StaffSignIn((path, body) => call('POST', path, { body }))
    .knowSecret(ADMIN_PHONE, TEST_ADMIN_TOTP_SECRET)
    .readSmsCodesWith(devOutboxReader((path) => call('GET', path, {})));
  return async (phone, pin) => {
    const res = await staff.login(phone, pin);
    if (res.status !== 200 || typeof res.body?.token !== 'string') throw new Error(`sign-in ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  };
}

/** A staff member of this role created by the administrator, signed in. */
export async function staffToken(
  call: Call,
  admin: string,
  role: string,
  phone: string,
  signIn: (phone: string, pin: string) => Promise<string>,
): Promise<string> {
  const res = await call('POST', '/api/orchestrator/admin/staff', {
    token: admin,
    body: { phone, pin: '2580', firstName: role.charAt(0) + role.slice(1).toLowerCase(), lastName: 'Test', countryCode: 'CM', role },
  });
  if (res.status !== 201) throw new Error(`staff ${role} ${res.status} ${JSON.stringify(res.body)}`);
  return signIn(phone, '2580');
}
