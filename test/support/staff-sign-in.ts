/**
 * Staff sign-in in tests: the harnesses give auth this secret for the bootstrap administrator
 * (BOOTSTRAP_ADMIN_TOTP_SECRET) and compute its codes; staff created during a test enrol at their
 * first sign-in through the harness, which remembers their secret and reads the enrolment's SMS
 * code from auth's development outbox (tools/staff-sign-in.ts).
 */
import { type SmsCodeReader, devOutboxReader } from '../../tools/staff-sign-in';

export {
  StaffSignIn,
  devOutboxReader,
  enrolmentCodeIn,
  type GetJson,
  type PostJson,
  type SignInAnswer,
  type SmsCodeReader,
} from '../../tools/staff-sign-in';

/** Base32, 160 bits; a test value, known to everyone. */
export const TEST_ADMIN_TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

/**
 * The SMS reader of a harness that runs auth itself: auth's development outbox, asked directly at
 * auth's address (a function: the address is known once auth has started).
 */
export function authDevOutbox(authUrl: () => string): SmsCodeReader {
  return devOutboxReader(async (path) => {
    const res = await fetch(`${authUrl()}${path}`);
    return { status: res.status, body: await res.json() };
  }, '/auth');
}
