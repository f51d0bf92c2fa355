/**
 * One administrator per document, for the doc-test (./docs.test.ts).
 *
 * The documents sign in as `$BOOTSTRAP_ADMIN_PHONE` with a code from `node tools/totp.mjs`. Auth takes
 * each 30-second step of a staff member's TOTP once, and only later than the last one it took
 * (docs/auth-limits.md "Staff sign-in"), so documents sharing one administrator each waited up to
 * 30 s for a fresh step. Here the bootstrap administrator signs in once and creates one administrator
 * per document, each enrolled through the real sign-in (its secret from the enrolment answer, the SMS
 * code from auth's development outbox); each document then runs with its own administrator in the
 * variables it already reads. A reader on a fresh platform still signs in as the bootstrap one.
 */
import { type SignInAnswer, StaffSignIn, devOutboxReader } from '../support/staff-sign-in';
import { newPhone as randomPhone } from '../support/phones';

/** What a document's session gets instead of the bootstrap administrator's values. */
export interface DocAdministrator {
  BOOTSTRAP_ADMIN_PHONE: string;
  BOOTSTRAP_ADMIN_PIN: string;
  /** read by tools/totp.mjs (and by the demo) before the key seed */
  BOOTSTRAP_ADMIN_TOTP_SECRET: string;
}

const PIN = '4826';

async function call(method: 'GET' | 'POST', url: string, body?: unknown, token?: string): Promise<SignInAnswer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A Cameroonian mobile number nobody in the documents uses, whose end is not the PIN (PIN rule). */
function newPhone(taken: Set<string>): string {
  for (;;) {
    const phone = randomPhone();
    if (!taken.has(phone) && !phone.endsWith(PIN)) {
      taken.add(phone);
      return phone;
    }
  }
}

/**
 * `count` administrators created by the bootstrap one through `POST /api/orchestrator/auth/register/admin`
 * and enrolled. Creating an administrator is the four-eyes action STAFF_CREATE: the platform must run
 * with it one-person (APPROVALS_ONE_PERSON_ACTIONS), as the doc-test's does, or this throws.
 */
export async function createDocAdministrators(
  gateway: string,
  bootstrap: { phone: string; pin: string; totpSecret: string },
  count: number,
): Promise<DocAdministrator[]> {
  const post = (path: string, body: Record<string, unknown>) => call('POST', `${gateway}${path}`, body);
  const staff = new StaffSignIn(post)
    .knowSecret(bootstrap.phone, bootstrap.totpSecret)
    .readSmsCodesWith(devOutboxReader((path) => call('GET', `${gateway}${path}`)));
  const signedIn = await staff.login(bootstrap.phone, bootstrap.pin);
  if (signedIn.status !== 200 || typeof signedIn.body?.token !== 'string')
    throw new Error(`the bootstrap administrator's sign-in answered ${signedIn.status}: ${JSON.stringify(signedIn.body)}`);
  const token = signedIn.body.token as string;

  const taken = new Set([bootstrap.phone]);
  const phones: string[] = [];
  // One after the other: each is a maker-checker request of the same maker.
  for (let i = 0; i < count; i++) {
    const phone = newPhone(taken);
    const created = await call(
      'POST',
      `${gateway}/api/orchestrator/auth/register/admin`,
      { phone, pin: PIN, firstName: 'Doc', lastName: `Admin${i + 1}`, countryCode: 'CM' },
      token,
    );
    if (created.status !== 201)
      throw new Error(`creating a document's administrator answered ${created.status}: ${JSON.stringify(created.body)}`);
    phones.push(phone);
  }
  // Each phone enrols on its own TOTP secret, so the sign-ins do not wait on one another.
  return Promise.all(
    phones.map(async (phone) => {
      const enrolled = await staff.login(phone, PIN);
      const secret = staff.secretOfBase32(phone);
      if (enrolled.status !== 200 || typeof enrolled.body?.token !== 'string' || !secret)
        throw new Error(`the enrolment of ${phone} answered ${enrolled.status}: ${JSON.stringify(enrolled.body)}`);
      return { BOOTSTRAP_ADMIN_PHONE: phone, BOOTSTRAP_ADMIN_PIN: PIN, BOOTSTRAP_ADMIN_TOTP_SECRET: secret };
    }),
  );
}
