import type { Browser, Page } from 'playwright-core';
import { E2E_ADMIN } from '../e2e/partners-support';
import { TEST_ADMIN_TOTP_SECRET, enrolmentCodeIn } from '../support/staff-sign-in';
import { type Json, WebhookOpsPlatform } from '../../apps/orchestrator/test/backoffice-webhooks-platform';
import { Authenticators, OperatorWindow, counts, launchChromium, saysSo, screenshot, shows } from '../browser/console-browser';

/**
 * The console screens of some maker-checker actions
 * (docs/operators.md "Four eyes: requests and decisions"), in a real headless Chromium against the five
 * real services (build first: the gateway serves dist/console). Each scenario checks what the screen
 * says and what the platform did: a compliance officer asked from the Staff screen is a STAFF_CREATE
 * request (and what the screen says happens next is what happens), staff access disabled and enabled
 * from the person 360 view, a webhook signing secret rotated on four eyes and collected once, and the
 * blocklist screen.
 */

jest.setTimeout(240_000);

const PIN = '2580';
const CHECKER = { phone: '+237690940001', firstName: 'Nadia', lastName: 'Fouda' };
const SUPPORT = { phone: '+237690940002', firstName: 'Paul', lastName: 'Essomba' };
const OFFICER = { phone: '+237690940003', firstName: 'Clara', lastName: 'Mbida' };
const ADMIN2 = { phone: '+237690940004', firstName: 'Yves', lastName: 'Atangana' };
const BARRED = '+237690940099';
const CUSTOMER_PHONE = '+237690940010';

describe('the console on four eyes: staff creation and access, webhook secrets, blocklist', () => {
  const p = new WebhookOpsPlatform();
  const authenticators = new Authenticators();
  let browser: Browser;
  let window: OperatorWindow;
  let supportUserId = '';
  let integrationId = '';
  let checkerToken = '';

  /** A staff sign-in through /api (the enrolment SMS code read from auth's development outbox). */
  async function apiSignIn(phone: string, pin: string): Promise<string> {
    const first = await p.call('POST', '/api/auth/login', { body: { phone, pin } });
    if (first.status !== 200) throw new Error(`login ${phone}: ${first.status} ${JSON.stringify(first.body)}`);
    const enrolling = first.body.secondFactor === 'TOTP_ENROLMENT_REQUIRED';
    if (enrolling) authenticators.enrol(phone, first.body.secret);
    else if (!authenticators.knows(phone)) authenticators.enrol(phone, TEST_ADMIN_TOTP_SECRET);
    let smsCode: string | undefined;
    if (enrolling) {
      const outbox = await p.call('GET', `/api/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
      smsCode = enrolmentCodeIn(outbox.body) ?? undefined;
    }
    const second = await p.call('POST', '/api/auth/login/second-factor', {
      body: { challengeToken: first.body.challengeToken, code: await authenticators.code(phone), ...(smsCode ? { smsCode } : {}) },
    });
    if (second.status !== 200) throw new Error(`second factor ${phone}: ${second.status} ${JSON.stringify(second.body)}`);
    return second.body.token;
  }

  /** The code of the newest SMS sent to the phone (auth's development outbox through /api, newest first). */
  async function lastSmsCode(phone: string): Promise<string> {
    const outbox = await p.call('GET', `/api/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const code = /\b(\d{6})\b/.exec((outbox.body?.messages as Json[] | undefined)?.[0]?.text ?? '')?.[1];
    if (!code) throw new Error(`no SMS code for ${phone}: ${outbox.status} ${JSON.stringify(outbox.body)}`);
    return code;
  }

  let adminToken = '';
  let adminTokenAt = 0;
  async function adminApi(): Promise<string> {
    if (Date.now() - adminTokenAt > 240_000) {
      adminToken = await apiSignIn(E2E_ADMIN.phone, E2E_ADMIN.pin);
      adminTokenAt = Date.now();
    }
    return adminToken;
  }

  async function approve(id: string, token: string): Promise<Json> {
    const res = await p.call('POST', `/api/backoffice/approvals/${id}/approve`, { token, body: { reason: 'Checked with the team' } });
    expect([res.status, res.body.status]).toEqual([200, 'EXECUTED']);
    return res.body;
  }

  async function pending(action: string): Promise<Json> {
    const list = await p.call('GET', `/api/backoffice/approvals?status=PENDING&action=${action}`, { token: await adminApi() });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    return list.body.items[0];
  }

  async function open(page: Page, label: RegExp): Promise<void> {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: label }).first().click();
    await shows(page.getByRole('heading', { level: 1, name: label }));
  }

  beforeAll(async () => {
    await p.start();
    browser = await launchChromium();
    // the platform's first checker: the bootstrap administrator creates them at once (nobody else could approve)
    const checker = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: await adminApi(),
      body: { ...CHECKER, pin: PIN, countryCode: 'CM', role: 'COMPLIANCE' },
    });
    expect([checker.status, checker.body.bootstrapException]).toEqual([201, true]);
    checkerToken = await apiSignIn(CHECKER.phone, PIN);
    const support = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: await adminApi(),
      body: { ...SUPPORT, pin: PIN, countryCode: 'CM', role: 'SUPPORT' },
    });
    expect(support.status).toBe(201);
    supportUserId = support.body.userId;
    const created = await p.call('POST', '/api/admin/partners/integrations', {
      token: await adminApi(),
      body: { name: 'Caisse Bonanjo', technicalContactEmail: 'tech@bonanjo.example', webhookUrl: p.receiver.url },
    });
    expect(created.status).toBe(201);
    integrationId = created.body.integration.id;

    window = await OperatorWindow.open(browser, p.gateway.url);
    const page = window.page;
    await page.goto('/console');
    await page.getByLabel('Phone number').fill(E2E_ADMIN.phone);
    await page.getByLabel(/^PIN/).fill(E2E_ADMIN.pin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel(/^Authenticator code/);
    await code.fill(await authenticators.code(E2E_ADMIN.phone));
    await code.press('Enter');
    await shows(page.getByTestId('signed-in-as'));
  }, 180_000);

  afterAll(async () => {
    if (window) await screenshot(window.page, 'four-eyes-end', false).catch(() => undefined);
    if (window?.problems.length) process.stderr.write(`browser problems:\n${window.problems.join('\n')}\n`);
    await window?.close().catch(() => undefined);
    await browser?.close();
    await p.stop();
  });

  it('a second compliance officer asked from the Staff screen waits for a checker, and then chooses a PIN by SMS as the screen says', async () => {
    const page = window.page;
    await open(page, /^Staff users$/);
    await page.getByLabel(/^Role/).first().click();
    await page.getByRole('option', { name: /Compliance/ }).click();
    await page.getByLabel('First name').fill(OFFICER.firstName);
    await page.getByLabel('Last name').fill(OFFICER.lastName);
    await page.getByLabel('Phone number').fill(OFFICER.phone);
    await page.getByLabel(/^First PIN/).fill(PIN);
    await page.getByRole('button', { name: 'Create staff user' }).click();
    const requested = page.getByTestId('staff-requested');
    await saysSo(requested, 'Sent for approval');
    await saysSo(requested, 'New compliance officer or administrator');
    await saysSo(requested, `once approved, the platform creates ${OFFICER.phone} with a random PIN nobody is told`);
    await saysSo(requested, 'PIN reset by SMS');
    await counts(page.getByTestId('staff-created'), 0);
    await screenshot(page, 'staff-requested', false);

    const request = await pending('STAFF_CREATE');
    expect(request.payload).toEqual({ role: 'COMPLIANCE', phone: OFFICER.phone, firstName: 'Clara', lastName: 'Mbida', countryCode: 'CM' });
    // nobody exists before the approval
    expect((await p.call('POST', '/api/auth/login', { body: { phone: OFFICER.phone, pin: PIN } })).status).toBe(401);

    // the link opens the request: the maker may not decide it, and the action is in words
    await page.getByTestId('submitted-request-link').click();
    await saysSo(page.getByTestId('approval-facts'), 'New compliance officer or administrator');
    await saysSo(page.getByTestId('cannot-decide'), 'You submitted this request');

    await approve(request.id, checkerToken);
    // what the screen said: the PIN typed by the administrator is not theirs; the SMS PIN reset gives them one
    const withTyped = await p.call('POST', '/api/auth/login', { body: { phone: OFFICER.phone, pin: PIN } });
    expect([withTyped.status, withTyped.body.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect((await p.call('POST', '/api/auth/reset-pin/request', { body: { phone: OFFICER.phone } })).status).toBe(202);
    const reset = await p.call('POST', '/api/orchestrator/auth/reset-pin', {
      body: { phone: OFFICER.phone, otp: await lastSmsCode(OFFICER.phone), newPin: '3691' },
    });
    expect(reset.status).toBe(200);
    const login = await p.call('POST', '/api/auth/login', { body: { phone: OFFICER.phone, pin: '3691' } });
    expect([login.status, login.body.secondFactor]).toEqual([200, 'TOTP_ENROLMENT_REQUIRED']);
  });

  it('the 360 view of a staff member offers disable, then (approved by another administrator) enable; a customer has neither', async () => {
    const page = window.page;
    await page.goto(`/console/people/${supportUserId}`);
    await saysSo(page.getByTestId('person-status'), 'active');
    await counts(page.getByRole('button', { name: 'Enable staff access…' }), 0);
    await page.getByRole('button', { name: 'Disable staff access…' }).click();
    const form = page.getByRole('form', { name: 'Ask to disable this staff member' });
    await form.getByLabel(/^Reason/).fill('Left the company');
    await form.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    await page.keyboard.press('Escape');
    const request = await pending('STAFF_DISABLE');
    expect(request.target).toEqual({ type: 'user', id: supportUserId });
    // still able to sign in until decided
    expect((await p.call('POST', '/api/auth/login', { body: { phone: SUPPORT.phone, pin: PIN } })).status).toBe(200);

    // a second administrator (itself a STAFF_CREATE the compliance officer approves) decides it
    const asked = await p.call('POST', '/api/orchestrator/auth/register/admin', {
      token: await adminApi(),
      body: { ...ADMIN2, pin: PIN, countryCode: 'CM' },
    });
    expect([asked.status, asked.body.action]).toEqual([202, 'STAFF_CREATE']);
    await approve(asked.body.id, checkerToken);
    expect((await p.call('POST', '/api/auth/reset-pin/request', { body: { phone: ADMIN2.phone } })).status).toBe(202);
    const reset = await p.call('POST', '/api/orchestrator/auth/reset-pin', {
      body: { phone: ADMIN2.phone, otp: await lastSmsCode(ADMIN2.phone), newPin: PIN },
    });
    expect(reset.status).toBe(200);
    const admin2 = await apiSignIn(ADMIN2.phone, PIN);
    await approve(request.id, admin2);
    const refused = await p.call('POST', '/api/auth/login', { body: { phone: SUPPORT.phone, pin: PIN } });
    expect(refused.body.code).toBe('ACCOUNT_DISABLED');

    // the screen now says disabled and offers enable only
    await page.reload();
    await saysSo(page.getByTestId('person-status'), 'disabled');
    await counts(page.getByRole('button', { name: 'Disable staff access…' }), 0);
    await page.getByRole('button', { name: 'Enable staff access…' }).click();
    const enable = page.getByRole('form', { name: 'Ask to enable this staff member again' });
    await enable.getByLabel(/^Reason/).fill('Back from leave');
    await enable.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    await screenshot(page, 'staff-enable-requested', false);
    await page.keyboard.press('Escape');
    await approve((await pending('STAFF_ENABLE')).id, admin2);
    expect((await p.call('POST', '/api/auth/login', { body: { phone: SUPPORT.phone, pin: PIN } })).status).toBe(200);

    // a second identical request is refused, in words
    await page.reload();
    await page.getByRole('button', { name: 'Disable staff access…' }).click();
    const again = page.getByRole('form', { name: 'Ask to disable this staff member' });
    await again.getByLabel(/^Reason/).fill('Left the company');
    await again.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Disable staff access…' }).click();
    await again.getByLabel(/^Reason/).fill('Left the company');
    await again.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('error-code'), 'APPROVAL_DUPLICATE_PENDING');
    await page.keyboard.press('Escape');

    // a customer's 360 view has no such actions (freeze is theirs)
    const customer = await p.call('POST', '/api/orchestrator/auth/register', {
      body: { phone: CUSTOMER_PHONE, pin: PIN, firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' },
    });
    expect(customer.status).toBe(201);
    await page.goto(`/console/people/${customer.body.userId}`);
    await shows(page.getByRole('button', { name: 'Freeze' }));
    await counts(page.getByRole('button', { name: /staff access/ }), 0);
  });

  it('a new webhook signing secret is asked for, approved by a compliance officer, and collected once by the administrator who asked', async () => {
    const page = window.page;
    await page.goto(`/console/partners/${integrationId}`);
    await page.getByRole('button', { name: 'Ask for a new signing secret…' }).click();
    const form = page.getByRole('form', { name: 'Ask for a new webhook signing secret' });
    await form.getByLabel(/^Reason/).fill('Secret pasted in a support ticket');
    await form.getByRole('button', { name: 'Submit for approval' }).click();
    await saysSo(page.getByTestId('submitted-request'), 'Sent for approval');
    await saysSo(page.getByTestId('submitted-request'), 'Webhook signing secret rotation');
    await saysSo(page.getByTestId('secret-rotation-next'), 'collect it below');
    const request = await pending('WEBHOOK_SECRET_ROTATE');
    expect(request.payload).toEqual({ integrationId, mode: 'live' });
    await saysSo(page.getByTestId('secret-rotation-requests'), 'Waiting for a checker');

    // before approval there is nothing to collect: the refusal in words
    await page.getByLabel(/^Approved rotation request id/).fill(request.id);
    await page.getByRole('button', { name: 'Collect secret' }).click();
    await saysSo(page.getByTestId('error-code'), 'WEBHOOK_SECRET_NOT_COLLECTABLE');

    await approve(request.id, checkerToken);
    await page.reload();
    await saysSo(page.getByTestId('secret-rotation-requests'), 'Carried out');
    await page.getByRole('button', { name: `Collect the secret of request ${request.id}` }).click();
    await page.getByRole('button', { name: 'Collect secret' }).click();
    const collected = page.getByTestId('collected-secret');
    await saysSo(collected, 'live webhooks: the previous secret also signs until');
    const secret = (await collected.locator('pre').innerText()).trim();
    expect(secret.length).toBeGreaterThan(20);
    await screenshot(page, 'webhook-secret-collected', false);
    // once only
    await page.getByRole('button', { name: 'Collect secret' }).click();
    await saysSo(page.getByTestId('error-code'), 'WEBHOOK_SECRET_NOT_COLLECTABLE');
    await counts(page.getByTestId('collected-secret'), 0);
  });

  it('the blocklist screen adds a phone at once and asks for its lifting, which waits for a checker', async () => {
    const page = window.page;
    await open(page, /^Blocklist$/);
    await page.getByLabel('Phone number').fill(BARRED);
    await page.getByLabel(/^Reason/).fill('UN consolidated list, entry 1234');
    await page.getByRole('button', { name: 'Add to the blocklist' }).click();
    await saysSo(page.getByTestId('blocklist-added'), `${BARRED} is on the Sanctions (official lists) list`);
    const row = page.getByTestId('blocklist-table').getByRole('row').filter({ hasText: BARRED });
    await counts(row, 1);
    await saysSo(row, 'active');
    // the same phone again: refused in words
    await page.getByLabel('Phone number').fill(BARRED);
    await page
      .getByLabel(/^Reason/)
      .first()
      .fill('Again');
    await page.getByRole('button', { name: 'Add to the blocklist' }).click();
    await saysSo(page.getByTestId('error-code'), 'BLOCKLIST_ENTRY_EXISTS');

    await row.getByRole('button', { name: 'Lift…' }).click();
    const lift = page.getByRole('form', { name: `Ask to lift the entry of ${BARRED}` });
    await lift.getByLabel(/^Reason/).fill('Delisted on 2026-12-01');
    await lift.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    await screenshot(page, 'blocklist-lift-requested', false);
    await page.keyboard.press('Escape');
    const request = await pending('BLOCKLIST_REMOVE');
    const still = await p.call('GET', `/api/risk/blocklist?phone=${encodeURIComponent(BARRED)}`, { token: await adminApi() });
    expect(still.body.entries).toHaveLength(1);

    await approve(request.id, checkerToken);
    // lifted: gone from the active list, kept as history with the reason
    await page.reload();
    await counts(page.getByTestId('blocklist-table').getByRole('row').filter({ hasText: BARRED }), 0);
    await page.getByLabel('Include lifted entries').check();
    const lifted = page.getByTestId('blocklist-table').getByRole('row').filter({ hasText: BARRED });
    await saysSo(lifted, 'lifted');
    await saysSo(lifted, 'Delisted on 2026-12-01');

    // the approvals inbox names the new actions
    await open(page, /^Approvals$/);
    await page
      .getByLabel(/^Status/)
      .first()
      .click();
    await page.getByRole('option', { name: 'Carried out', exact: true }).click();
    await saysSo(page.getByTestId('approvals-table'), 'Lift a blocklist entry');
    await saysSo(page.getByTestId('approvals-table'), 'Disable a staff member');
    await saysSo(page.getByTestId('approvals-table'), 'Webhook signing secret rotation');
  });
});
