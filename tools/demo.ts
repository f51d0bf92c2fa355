/**
 * `npm run demo`: a walkthrough of the public money flow against a platform started by `npm start`
 * (README "Walkthrough"). Everything goes through the gateway (`/api`), as the apps and the staff's
 * console do: no service key, no private port. Money enters the platform through the agent's float
 * funding, a maker-checker request: the administrator submits it
 * (`POST /api/backoffice/ledger/agents/:agentId/float-fundings`), a compliance officer approves it
 * (`POST /api/backoffice/approvals/:id/approve`); see docs/ledger-corrections.md.
 *
 * Needs, in the environment of both `npm start` and `npm run demo`:
 *   BOOTSTRAP_ADMIN_PHONE, BOOTSTRAP_ADMIN_PIN   (the first administrator, created by auth at start)
 *   MM_SERVICE_KEY_SEED or BOOTSTRAP_ADMIN_TOTP_SECRET (the administrator's second factor: npm start
 *     derives its TOTP secret from the seed; without either, the demo enrols the administrator and
 *     prints the secret)
 * and MM_PORT_BASE if `npm start` used another base than 3000.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { StaffSignIn, bootstrapAdminTotpSecret, devOutboxReader } from './staff-sign-in';

const BASE = Number(process.env.MM_PORT_BASE ?? 3000);
const GATEWAY = process.env.DEMO_GATEWAY_URL ?? `http://127.0.0.1:${BASE}`;
const ADMIN = { phone: process.env.BOOTSTRAP_ADMIN_PHONE ?? '', pin: process.env.BOOTSTRAP_ADMIN_PIN ?? '' };
const PIN = '2580';
/**
 * The demo's compliance officer, kept between runs: creating a second checker is itself a
 * four-eyes request (STAFF_CREATE), so only the first run creates one, on the bootstrap exception.
 */
const ROOT = basename(resolve(__dirname, '..')) === 'dist' ? resolve(__dirname, '..', '..') : resolve(__dirname, '..');
const OFFICER_FILE = join(ROOT, '.data', 'demo', 'compliance-officer.json');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a walkthrough reads answers field by field
type Json = any;

class DemoError extends Error {}

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

const money = (n: number) => `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} XAF`;

async function http(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch {
    throw new DemoError(`${base} does not answer: is the platform running (npm start)?`);
  }
  const text = await res.text();
  const body: Json = text ? JSON.parse(text) : undefined;
  return { status: res.status, body };
}

/** A call through the gateway that must succeed with `status`. */
async function api(method: string, path: string, options: { token?: string; body?: unknown } = {}, status = 200): Promise<Json> {
  const res = await http(GATEWAY, method, `/api${path}`, options);
  if (res.status !== status) throw new DemoError(`${method} /api${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A fresh Cameroon mobile number; never one ending in the demo PIN, which auth would refuse as too guessable. */
const phone = (): string => {
  for (;;) {
    const p = `+2376${randomInt(10_000_000, 100_000_000)}`;
    if (!p.endsWith(PIN)) return p;
  }
};

/**
 * Where the demo reads the SMS the platform sends: auth's development SMS box through the gateway
 * (SMS_DRIVER=dev), or, when the platform sends real SMS (containers, SMS_DRIVER=http), the box of the
 * provider it sends to, DEMO_SMS_BOX_URL (answering `GET <url>/dev/sms?phone=…` as auth's box does).
 */
const SMS_BOX = process.env.DEMO_SMS_BOX_URL;
const readSmsBox = (path: string) => (SMS_BOX ? http(SMS_BOX, 'GET', path.replace(/^\/api\/auth/, '')) : http(GATEWAY, 'GET', path));

/**
 * Staff sign in with a second factor (docs/auth-limits.md "Staff sign-in"): the demo computes the
 * codes, and reads an enrolment's SMS code from the SMS box.
 */
const staff = new StaffSignIn(async (path, body) => http(GATEWAY, 'POST', path, { body })).readSmsCodesWith(devOutboxReader(readSmsBox));
const adminTotpSecret =
  process.env.BOOTSTRAP_ADMIN_TOTP_SECRET ||
  (process.env.MM_SERVICE_KEY_SEED ? bootstrapAdminTotpSecret(process.env.MM_SERVICE_KEY_SEED) : '');
if (adminTotpSecret && ADMIN.phone) staff.knowSecret(ADMIN.phone, adminTotpSecret);

/** Phone + PIN, then the TOTP code (a staff member new to it enrols here); answers the access token. */
async function staffLogin(p: string, pin: string): Promise<string> {
  const known = staff.secretOf(p);
  const res = await staff.login(p, pin);
  if (res.status !== 200) throw new DemoError(`POST /api/auth/login of ${p} answered ${res.status}: ${JSON.stringify(res.body)}`);
  const enrolled = staff.secretOf(p);
  if (p === ADMIN.phone && enrolled && !known)
    say(`  (the administrator enrolled its second factor: TOTP secret ${staff.secretOfBase32(p)}, add it to an authenticator app)`);
  return res.body.token as string;
}

interface Person {
  name: string;
  phone: string;
  token: string;
  userId: string;
  account: string;
  commission?: string;
  agentCode?: string;
  agentId?: string;
}

async function register(kind: 'customer' | 'agent', firstName: string): Promise<Person> {
  const p = phone();
  const path = kind === 'agent' ? '/orchestrator/auth/register/agent' : '/orchestrator/auth/register';
  const reg = await api('POST', path, { body: { phone: p, pin: PIN, firstName, lastName: 'Demo', countryCode: 'CM' } }, 201);
  const { token } = await api('POST', '/auth/login', { body: { phone: p, pin: PIN } });
  say(`  ${firstName.padEnd(6)} ${kind.padEnd(8)} ${p}${reg.agentCode ? `  agent code ${reg.agentCode}` : ''}`);
  return {
    name: firstName,
    phone: p,
    token,
    userId: reg.userId,
    account: reg.accounts.XAF,
    commission: reg.commissionAccounts?.XAF,
    agentCode: reg.agentCode,
    agentId: reg.agentId,
  };
}

/** create → (send-otp → verify-otp) → verify-pin → confirm, printing each answer's gist. */
async function payment(initiator: Person, body: Record<string, unknown>, otpFor?: Person): Promise<Json> {
  const created = await api('POST', '/v1/intents', { token: initiator.token, body: { idempotencyKey: randomUUID(), ...body } }, 201);
  say(`    created   ${created.intentId}: ${money(created.amount)} + fee ${money(created.fee)}, with ${created.counterparty.displayName}`);
  const id = created.intentId;
  if (created.requiresOtp) {
    const sent = await api('POST', `/v1/intents/${id}/send-otp`, { token: initiator.token });
    const sms = (await readSmsBox(`/api/auth/dev/sms?phone=${encodeURIComponent(otpFor!.phone)}`)).body;
    // a provider's box also holds the orchestrator's payment messages: the newest that starts with a code
    const code = (sms?.messages as Array<{ text: string }> | undefined)?.map((m) => /^(\d{6})\b/.exec(m.text)?.[1]).find(Boolean);
    if (!code)
      throw new DemoError(`no code in the SMS box for ${otpFor!.phone}: is SMS_DRIVER=dev, or DEMO_SMS_BOX_URL the provider's box?`);
    say(`    otp sent  to ${sent.sentTo}; ${otpFor!.name} reads out ${code}`);
    await api('POST', `/v1/intents/${id}/verify-otp`, { token: initiator.token, body: { otpCode: code } });
  }
  await api('POST', `/v1/intents/${id}/verify-pin`, { token: initiator.token, body: { pin: PIN } });
  const done = await api('POST', `/v1/intents/${id}/confirm`, { token: initiator.token });
  say(`    confirmed ${done.status}, reference ${done.referenceId}, fee charged ${money(done.fees)}`);
  return done;
}

/** The officer of an earlier run when it still signs in, else a new one (the platform's first checker). */
async function complianceOfficer(admin: string): Promise<string> {
  let saved: { phone: string; pin: string; totpSecret: string } | undefined;
  try {
    saved = JSON.parse(readFileSync(OFFICER_FILE, 'utf8'));
  } catch {
    saved = undefined;
  }
  if (saved) {
    staff.knowSecret(saved.phone, saved.totpSecret);
    const res = await staff.login(saved.phone, saved.pin);
    if (res.status === 200 && typeof res.body?.token === 'string') {
      say(`  compliance officer ${saved.phone} (created by an earlier run)`);
      return res.body.token as string;
    }
  }
  const officerPhone = phone();
  const created = await http(GATEWAY, 'POST', '/api/orchestrator/admin/staff', {
    token: admin,
    body: { phone: officerPhone, pin: PIN, firstName: 'Clara', lastName: 'Demo', countryCode: 'CM', role: 'COMPLIANCE' },
  });
  if (created.status === 202)
    throw new DemoError(
      `the platform already has a checker, so a new compliance officer is a four-eyes request (${created.body.id}): ` +
        `approve it in the console, or run the demo against a fresh platform (${OFFICER_FILE} holds the demo's own officer)`,
    );
  if (created.status !== 201)
    throw new DemoError(`POST /api/orchestrator/admin/staff answered ${created.status}: ${JSON.stringify(created.body)}`);
  const token = await staffLogin(officerPhone, PIN);
  mkdirSync(dirname(OFFICER_FILE), { recursive: true });
  writeFileSync(OFFICER_FILE, JSON.stringify({ phone: officerPhone, pin: PIN, totpSecret: staff.secretOfBase32(officerPhone) }), {
    mode: 0o600,
  });
  say(`  compliance officer ${officerPhone} created (the first checker: no second person is needed for it)`);
  return token;
}

async function balances(people: Person[]): Promise<void> {
  for (const person of people) {
    const wallet = await api('GET', '/orchestrator/me/wallet', { token: person.token });
    const accounts = wallet.balances as Array<{ currency: string; balance: number; accountType: string }>;
    const xaf = accounts.filter((a) => a.currency === 'XAF').map((a) => `${a.accountType} ${money(a.balance)}`);
    say(`  ${person.name.padEnd(6)} ${xaf.join(', ')}`);
  }
}

async function main(): Promise<void> {
  if (!ADMIN.phone || !ADMIN.pin) {
    throw new DemoError('set BOOTSTRAP_ADMIN_PHONE and BOOTSTRAP_ADMIN_PIN, the same as for npm start (README "Walkthrough")');
  }
  await api('GET', '/health');
  say(`Platform at ${GATEWAY}\n`);

  say('1. Staff: the bootstrap administrator and a compliance officer (the checker of corrections).');
  const admin = await staffLogin(ADMIN.phone, ADMIN.pin);
  const officer = await complianceOfficer(admin);

  say('\n2. Registration: an agent and two customers (each gets a wallet with XAF and XOF accounts).');
  const kofi = await register('agent', 'Kofi');
  const awa = await register('customer', 'Awa');
  const jean = await register('customer', 'Jean');

  say("\n3. The agent's float is funded under four eyes: the administrator asks, the compliance officer approves.");
  const request = await api(
    'POST',
    `/backoffice/ledger/agents/${kofi.agentId}/float-fundings`,
    { token: admin, body: { amount: 500_000, currency: 'XAF', reason: 'Demo: initial agent float' } },
    202,
  );
  say(`  request ${request.id} ${request.status}: ${request.summary}`);
  const approved = await api('POST', `/backoffice/approvals/${request.id}/approve`, {
    token: officer,
    body: { reason: 'Demo float approved' },
  });
  if (approved.status !== 'EXECUTED')
    throw new DemoError(`the float funding ended ${approved.status}: ${JSON.stringify(approved.failure)}`);
  say(`  ${approved.status} by the compliance officer: ${money(500_000)} on Kofi's float (ledger ${approved.result?.referenceId})`);

  say('\n4. Cash-in: Awa hands Kofi 50 000 in cash; Kofi credits her wallet (his PIN).');
  await payment(kofi, { type: 'CASH_IN', amount: 50_000, clientPhone: awa.phone });

  say('\n5. Transfer: Awa sends Jean 10 000 (her PIN).');
  const transfer = await payment(awa, { type: 'TRANSFER', amount: 10_000, clientPhone: jean.phone, description: 'Lunch' });

  say('\n6. Cash-out with a fresh withdrawal QR: Jean shows a code, Kofi scans it, no OTP.');
  const qr = await api('POST', '/v1/withdrawal-qr', { token: jean.token, body: { amount: 5_000 } }, 201);
  say(`    Jean's code ${qr.qrToken.slice(0, 12)}… valid until ${qr.expiresAt}`);
  await payment(kofi, { type: 'CASH_OUT', amount: 5_000, qrToken: qr.qrToken });

  say('\n7. Cash-out with an OTP: Awa has no code at hand; the platform texts her one.');
  await payment(kofi, { type: 'CASH_OUT', amount: 2_000, clientPhone: awa.phone }, awa);

  say("\n8. Balances (each one's own wallet):");
  await balances([kofi, awa, jean]);

  say('\n9. History and receipt:');
  const history = await api('GET', '/v1/transactions?limit=10', { token: awa.token });
  for (const t of history.items as Json[]) {
    say(`  ${t.referenceId}  ${t.operationType.padEnd(8)} ${t.direction.padEnd(6)} ${money(t.amount).padStart(11)}  fee ${money(t.fee)}`);
  }
  const receipt = await api('GET', `/v1/transactions/${transfer.referenceId}`, { token: jean.token });
  say(
    `  Jean's receipt ${receipt.referenceId}: ${money(receipt.amount)} from ${receipt.payer.displayName} (${receipt.payer.phone}), "${receipt.description}"`,
  );
  say('\nDone. The OpenAPI document of the public API: GET /api/openapi.json; the flow in detail: docs/mobile-api.md');
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof DemoError ? error.message : ((error as Error).stack ?? String(error))}\n`);
  process.exit(1);
});
