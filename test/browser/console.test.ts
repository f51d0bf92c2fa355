import { randomUUID } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { E2E_ADMIN } from '../e2e/partners-support';
import { TEST_ADMIN_TOTP_SECRET, enrolmentCodeIn } from '../support/staff-sign-in';
import { type Json, WebhookOpsPlatform, until } from '../../apps/orchestrator/test/backoffice-webhooks-platform';
import { Authenticators, OperatorWindow, counts, launchChromium, saysExactly, saysSo, screenshot, shows } from './console-browser';

/**
 * The operators' console (docs/operators.md "The screens") in a real headless Chromium against the
 * five real services: each scenario is what an operator does with the mouse and keyboard, checked by
 * what the screen says and by what the platform did (balances, deliveries, the audit trail). The
 * scenarios run in order and share the operators they create, as a working day would.
 *
 * Screenshots of each main screen land in test/browser/artifacts/; UPDATE_SCREENSHOTS=1 also copies
 * them to docs/images/console-*.png for docs/operators.md.
 */

jest.setTimeout(240_000);

const PIN = '2580';
const OFFICER = { phone: '+237690930001', firstName: 'Clara', lastName: 'Mbida' };
const SUPPORT = { phone: '+237690930002', firstName: 'Paul', lastName: 'Essomba' };
/** a second checker, who approves the float the set-up gives the agent before the scenarios start */
const AGENT_PHONE = '+237690930010';
const CUSTOMER_PHONE = '+237690930011';
const FLOAT_AMOUNT = 250_000;
const CASH_IN_AMOUNT = 15_000;

describe('the operators console in a browser', () => {
  const p = new WebhookOpsPlatform();
  const authenticators = new Authenticators();
  let browser: Browser;
  const windows: OperatorWindow[] = [];
  let adminToken = '';
  let adminTokenAt = 0;
  let agent: { userId: string; agentId: string; token: string };
  let customer: { userId: string; token: string };
  let integration: { id: string; name: string; testKey: string };
  let floatRequestId: string | undefined;
  let paymentReference: string | undefined;
  let heldEvents: string[] = [];

  /** The code the platform sent by SMS with an enrolment challenge, read from auth's development outbox through /api (the staff member's phone). */
  async function enrolmentSms(phone: string): Promise<string> {
    const outbox = await p.call('GET', `/api/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const code = enrolmentCodeIn(outbox.body);
    if (!code) throw new Error(`no enrolment SMS for ${phone}: ${outbox.status} ${JSON.stringify(outbox.body)}`);
    return code;
  }

  /** A staff sign-in through /api with the authenticator's code (set-up steps the test does not watch). */
  async function apiSignIn(phone: string, pin: string): Promise<string> {
    const first = await p.call('POST', '/api/auth/login', { body: { phone, pin } });
    if (first.status !== 200) throw new Error(`login ${phone}: ${first.status} ${JSON.stringify(first.body)}`);
    if (typeof first.body.token === 'string') return first.body.token;
    const enrolling = first.body.secondFactor === 'TOTP_ENROLMENT_REQUIRED';
    if (enrolling) authenticators.enrol(phone, first.body.secret);
    // an administrator enrolled at start (a harness that sets BOOTSTRAP_ADMIN_TOTP_SECRET) has the tests' secret
    else if (!authenticators.knows(phone)) authenticators.enrol(phone, TEST_ADMIN_TOTP_SECRET);
    const second = await p.call('POST', '/api/auth/login/second-factor', {
      body: {
        challengeToken: first.body.challengeToken,
        code: await authenticators.code(phone),
        ...(enrolling ? { smsCode: await enrolmentSms(phone) } : {}),
      },
    });
    if (second.status !== 200) throw new Error(`second factor ${phone}: ${second.status} ${JSON.stringify(second.body)}`);
    return second.body.token;
  }

  /** The administrator's token for the test's own API calls (a staff token lives 5 minutes: a fresh one after 4). */
  async function adminApi(): Promise<string> {
    if (Date.now() - adminTokenAt > 240_000) {
      adminToken = await apiSignIn(E2E_ADMIN.phone, E2E_ADMIN.pin);
      adminTokenAt = Date.now();
    }
    return adminToken;
  }

  async function register(kind: 'agent' | 'customer', phone: string, firstName: string): Promise<Json> {
    const path = kind === 'agent' ? '/api/orchestrator/auth/register/agent' : '/api/orchestrator/auth/register';
    const res = await p.call('POST', path, { body: { phone, pin: PIN, firstName, lastName: 'Nkoulou', countryCode: 'CM' } });
    if (res.status !== 201) throw new Error(`register ${kind} ${res.status} ${JSON.stringify(res.body)}`);
    const login = await p.call('POST', '/api/auth/login', { body: { phone, pin: PIN } });
    return { ...res.body, token: login.body.token };
  }

  async function newWindow(): Promise<OperatorWindow> {
    const window = await OperatorWindow.open(browser, p.gateway.url);
    windows.push(window);
    return window;
  }

  /**
   * Phone and PIN, then the authenticator's code (the second step every staff sign-in takes); an
   * enrolment also takes the code sent by SMS. `wrongSmsFirst`: an SMS code that is not the one sent
   * is typed first, and refused in words.
   */
  async function signIn(
    page: Page,
    phone: string,
    pin: string,
    opts: { enrol?: boolean; shot?: string; wrongSmsFirst?: boolean } = {},
  ): Promise<void> {
    await page.goto('/console');
    await page.getByLabel('Phone number').fill(phone);
    await page.getByLabel(/^PIN/).fill(pin);
    if (opts.shot) await screenshot(page, opts.shot);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel(/^Authenticator code/);
    await code.waitFor();
    if (opts.enrol) {
      // the enrolment step shows the new secret: the operator types it into an authenticator app,
      // and the code the SMS brought to their phone
      authenticators.enrol(phone, (await page.getByTestId('totp-secret').innerText()).trim());
      const sms = page.getByLabel(/^SMS code/);
      const sent = await enrolmentSms(phone);
      if (opts.wrongSmsFirst) {
        await code.fill(await authenticators.code(phone));
        await sms.fill(sent === '000000' ? '111111' : '000000');
        await sms.press('Enter');
        await saysSo(page.getByTestId('error-code'), 'SECOND_FACTOR_SMS_CODE_INVALID');
        await saysSo(page.getByTestId('error-message'), 'Wrong SMS code');
      }
      await sms.fill(sent);
      await screenshot(page, 'second-factor-enrolment');
    } else if (opts.shot) {
      await screenshot(page, 'second-factor');
    }
    await code.fill(await authenticators.code(phone));
    await code.press('Enter');
    await shows(page.getByTestId('signed-in-as'));
  }

  /** Opens a screen from the navigation (only the screens the role reaches are listed). */
  async function open(page: Page, label: RegExp): Promise<void> {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: label }).first().click();
    await shows(page.getByRole('heading', { level: 1, name: label }));
  }

  /** People: search by phone, open the one person found (their 360 view). */
  async function findPerson(page: Page, phone: string, shot?: string): Promise<void> {
    await open(page, /^People$/);
    await page.getByLabel(/^Phone, name, user id/).fill(phone);
    await page.getByLabel(/^Phone, name, user id/).press('Enter');
    const row = page.getByTestId('people-table').getByRole('row').filter({ hasText: phone });
    await counts(row, 1);
    if (shot) await screenshot(page, shot);
    await row.getByRole('link').first().click();
    await shows(page.getByTestId('person-360'));
  }

  /** A Mantine select: opens it, picks the option. */
  async function choose(page: Page, label: RegExp, option: string | RegExp): Promise<void> {
    await page.getByLabel(label).first().click();
    await page.getByRole('option', { name: option }).click();
  }

  async function textOf(locator: Locator): Promise<string> {
    return (await locator.innerText()).replace(/\s+/g, ' ');
  }

  beforeAll(async () => {
    await p.start();
    browser = await launchChromium();
    // the bootstrap administrator enrols through /api first; the browser then signs in with a code
    const adminToken = await adminApi();
    const support = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: adminToken,
      body: { ...SUPPORT, pin: PIN, countryCode: 'CM', role: 'SUPPORT' },
    });
    expect(support.status).toBe(201);
    const a = await register('agent', AGENT_PHONE, 'Kofi');
    agent = { userId: a.userId, agentId: a.agentId, token: a.token };
    const c = await register('customer', CUSTOMER_PHONE, 'Awa');
    customer = { userId: c.userId, token: c.token };
    // No other checker is created here: the compliance officer of scenario 1 is the platform's first
    // checker, which the bootstrap administrator creates alone (STAFF_CREATE's bootstrap exception);
    // the cash-in of scenario 4 draws on the float scenario 3 funds.
    const created = await p.call('POST', '/api/admin/partners/integrations', {
      token: adminToken,
      body: {
        name: 'Caisse Wouri',
        technicalContactEmail: 'tech@wouri.example',
        webhookUrl: p.receiver.url,
        testWebhookUrl: p.receiver.url,
      },
    });
    expect(created.status).toBe(201);
    integration = { id: created.body.integration.id, name: 'Caisse Wouri', testKey: created.body.apiKeys.test.key };
    p.receiver.secrets = [created.body.webhookSecrets.test];
  }, 180_000);

  afterAll(async () => {
    for (const window of windows) await window.close().catch(() => undefined);
    await browser?.close();
    await p.stop();
  });

  afterEach(async () => {
    // what each window shows at the end of a scenario (the first thing to look at when one fails)
    const scenario = /browser (\w+)\./.exec(expect.getState().currentTestName ?? '')?.[1] ?? 'scenario';
    for (const [i, window] of windows.entries())
      await screenshot(window.page, `end-of-${scenario}-window-${i + 1}`, false).catch(() => undefined);
    // what the pages threw, printed with the failure of the scenario that made them throw
    for (const window of windows) {
      if (window.problems.length > 0) process.stderr.write(`browser problems (${scenario}):\n${window.problems.splice(0).join('\n')}\n`);
    }
  });

  let admin: OperatorWindow;
  let officer: OperatorWindow;

  it('1. the administrator signs in with PIN and authenticator code, and creates a compliance officer', async () => {
    admin = await newWindow();
    const page = admin.page;
    await signIn(page, E2E_ADMIN.phone, E2E_ADMIN.pin, { shot: 'sign-in' });
    // the bootstrap administrator has no staff record: named by what it is, not by its user id
    await saysSo(page.getByTestId('signed-in-as'), 'Bootstrap administrator · ADMIN');
    await screenshot(page, 'home');
    // the screenshot waited until no card said "Loading…": each has its figures, none a refusal (a card
    // that failed shows its error notice instead)
    await counts(page.getByTestId('error-notice'), 0);

    await open(page, /^Staff users$/);
    await choose(page, /^Role/, /Compliance/);
    await page.getByLabel('First name').fill(OFFICER.firstName);
    await page.getByLabel('Last name').fill(OFFICER.lastName);
    await page.getByLabel('Phone number').fill(OFFICER.phone);
    await page.getByLabel(/^First PIN/).fill(PIN);
    await page.getByRole('button', { name: 'Create staff user' }).click();
    const created = page.getByTestId('staff-created');
    await saysSo(created, OFFICER.phone);
    await saysSo(created, 'COMPLIANCE');
    await screenshot(page, 'staff');

    // the platform has them: they can sign in (and must enrol a second factor)
    const login = await p.call('POST', '/api/auth/login', { body: { phone: OFFICER.phone, pin: PIN } });
    expect([login.status, login.body.secondFactor]).toEqual([200, 'TOTP_ENROLMENT_REQUIRED']);
  });

  it('2. the officer signs in for the first time and enrols the second factor from the secret on the screen and the code sent by SMS', async () => {
    officer = await newWindow();
    await signIn(officer.page, OFFICER.phone, PIN, { enrol: true, wrongSmsFirst: true });
    await saysSo(officer.page.getByTestId('signed-in-as'), `${OFFICER.firstName} ${OFFICER.lastName} · COMPLIANCE`);

    // enrolled: the next sign-in asks for a code (no new secret), and the code from that secret opens it
    const again = await p.call('POST', '/api/auth/login', { body: { phone: OFFICER.phone, pin: PIN } });
    expect([again.status, again.body.secondFactor, again.body.secret]).toEqual([200, 'TOTP_REQUIRED', undefined]);
    const second = await p.call('POST', '/api/auth/login/second-factor', {
      body: { challengeToken: again.body.challengeToken, code: await authenticators.code(OFFICER.phone) },
    });
    expect(second.status).toBe(200);
  });

  async function floatBalance(): Promise<number> {
    const wallet = await p.call('GET', '/api/orchestrator/me/wallet', { token: agent.token });
    expect(wallet.status).toBe(200);
    const float = (wallet.body.balances as Json[]).find((b) => b.currency === 'XAF' && b.accountType === 'agent');
    return Number(float?.balance ?? NaN);
  }

  it('3a. the administrator submits a float funding for an agent, and sees no approve button on their own request (4)', async () => {
    const page = admin.page;
    const before = await floatBalance();
    await findPerson(page, AGENT_PHONE);
    await saysExactly(page.getByTestId('person-name'), 'Kofi Nkoulou');
    await page.getByRole('button', { name: 'Fund float…' }).click();
    const form = page.getByRole('form', { name: "Fund this agent's float" });
    await form.getByLabel(/^Amount/).fill(String(FLOAT_AMOUNT));
    await form.getByLabel(/^Reason/).fill('Opening float of the Akwa agent');
    await form.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    await screenshot(page, 'float-funding');

    const pending = await until('the pending request', async () => {
      const list = await p.call('GET', '/api/backoffice/approvals?status=PENDING&action=FLOAT_FUNDING', { token: await adminApi() });
      return (list.body?.items as Json[] | undefined)?.[0];
    });
    floatRequestId = pending.id as string;
    expect(pending.summary).toContain('Fund the float');
    expect(pending.amount).toEqual({ value: FLOAT_AMOUNT, currency: 'XAF' });
    expect(await floatBalance()).toBe(before);

    // the maker's own request: no approve and no reject, and why not
    await page.getByTestId('approval-link').click();
    await saysSo(page.getByTestId('approval-facts'), pending.summary);
    await saysExactly(page.getByTestId('cannot-decide'), 'You submitted this request: another person must check it.');
    await counts(page.getByRole('button', { name: 'Approve' }), 0);
    await counts(page.getByRole('button', { name: 'Reject' }), 0);
    await screenshot(page, 'approval-own-request');
    // the inbox lists it as waiting
    await open(page, /^Approvals$/);
    await saysSo(page.getByRole('row').filter({ hasText: pending.summary }).first(), 'Waiting for a checker');
  });

  it("3b. the compliance officer approves it from the inbox, after the preview, and the agent's float grows by the amount", async () => {
    expect(floatRequestId).toBeDefined();
    const before = await floatBalance();
    const page = officer.page;
    await open(page, /^Approvals$/);
    const row = page.getByRole('row').filter({ hasText: 'Agent float funding' }).filter({ hasText: 'Waiting for a checker' }).first();
    await saysSo(row, /250[\s\u202f\u00a0,.]?000/);
    await screenshot(page, 'approvals');
    await row.getByRole('link', { name: 'Agent float funding' }).click();
    // what will happen, before deciding: the postings the ledger will write
    await saysExactly(page.getByTestId('approval-status'), 'Waiting for a checker');
    await shows(page.getByText(/suspense/i).first());
    await screenshot(page, 'approval-detail');
    await page.getByLabel(/^Reason for your decision/).fill('Cash deposit slip 4471 checked');
    await page.getByRole('button', { name: 'Approve' }).click();
    await saysExactly(page.getByTestId('approval-status'), 'Carried out');
    await saysSo(page.getByTestId('approval-facts'), 'Cash deposit slip 4471 checked');

    const request = await p.call('GET', `/api/backoffice/approvals/${floatRequestId}`, { token: await adminApi() });
    expect(request.body.request.status).toBe('EXECUTED');
    expect(await floatBalance()).toBe(before + FLOAT_AMOUNT);
  });

  it("5. a support operator finds a customer by phone and opens a payment's story with its journal", async () => {
    // a cash-in at the agent: the payment the customer asks about
    const intent = await p.call('POST', '/api/v1/intents', {
      token: agent.token,
      body: { idempotencyKey: randomUUID(), type: 'CASH_IN', amount: CASH_IN_AMOUNT, clientPhone: CUSTOMER_PHONE },
    });
    expect(intent.status).toBe(201);
    const pin = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/verify-pin`, { token: agent.token, body: { pin: PIN } });
    expect(pin.status).toBeLessThan(300);
    const confirmed = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/confirm`, { token: agent.token });
    expect(confirmed.body.status).toBe('SUCCEEDED');
    paymentReference = confirmed.body.referenceId as string;

    const support = await newWindow();
    const page = support.page;
    await signIn(page, SUPPORT.phone, PIN, { enrol: true });
    await findPerson(page, CUSTOMER_PHONE, 'search');
    // the 360 view: who, and the recent operations, the cash-in among them
    await saysExactly(page.getByTestId('person-name'), 'Awa Nkoulou');
    expect(page.url()).toContain(customer.userId);
    const operation = page.getByTestId('recent-operations').getByRole('row').filter({ hasText: paymentReference });
    await saysSo(operation, 'CASH_IN');
    await screenshot(page, 'person');
    await operation.getByRole('link', { name: paymentReference }).click();
    // the payment story: the intent, the fee, the journal entries of the ledger
    await shows(page.getByTestId('payment-story'));
    expect(await textOf(page.getByTestId('payment-story'))).toContain(paymentReference);
    const journal = page.getByTestId('journal-entries');
    await saysSo(journal, ', balanced');
    // the cash-in's double entry: the agent's float debited, the customer's account credited
    const rows = journal.locator('tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(2);
    const directions = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(directions.some((t) => /DEBIT/i.test(t))).toBe(true);
    expect(directions.some((t) => /CREDIT/i.test(t))).toBe(true);
    await screenshot(page, 'payment-story');
    await page.getByTestId('journal').scrollIntoViewIfNeeded();
    await screenshot(page, 'payment-journal');
  });

  it('5b. the officer asks to reverse that payment from its story, the administrator approves it, and the money goes back', async () => {
    expect(paymentReference).toBeDefined();
    const customerBalance = async () => {
      const wallet = await p.call('GET', '/api/orchestrator/me/wallet', { token: customer.token });
      return Number((wallet.body.balances as Json[]).find((b) => b.currency === 'XAF' && b.accountType === 'customer')?.balance);
    };
    expect(await customerBalance()).toBe(CASH_IN_AMOUNT);
    const floatBefore = await floatBalance();

    // the maker: the story, then "Reverse…" with a reason
    const maker = officer.page;
    await open(maker, /^Payments$/);
    await maker.getByLabel(/^Reference/).fill(paymentReference!);
    await maker.getByLabel(/^Reference/).press('Enter');
    await maker.getByRole('link', { name: paymentReference! }).first().click();
    await shows(maker.getByTestId('payment-story'));
    await maker.getByRole('button', { name: 'Reverse…' }).click();
    const form = maker.getByRole('form', { name: 'Ask to reverse this payment' });
    await form.getByLabel(/^Reason/).fill('Cash-in keyed to the wrong customer (ticket 8812)');
    await form.getByRole('button', { name: 'Submit' }).click();
    await saysSo(maker.getByTestId('submitted-approval'), 'another person must approve it');
    await screenshot(maker, 'reversal-submitted');
    expect(await customerBalance()).toBe(CASH_IN_AMOUNT);

    // the checker: the inbox, the postings the reversal will write, approve
    const checker = admin.page;
    await open(checker, /^Approvals$/);
    await checker.reload(); // the administrator left the inbox open in scenario 3: read it afresh
    const row = checker.getByRole('row').filter({ hasText: 'Reversal' }).filter({ hasText: 'Waiting for a checker' }).first();
    await row.getByRole('link', { name: 'Reversal' }).click();
    await saysExactly(checker.getByTestId('approval-status'), 'Waiting for a checker');
    await saysSo(checker.getByTestId('approval-facts'), 'Cash-in keyed to the wrong customer (ticket 8812)');
    await shows(checker.getByText(/DEBIT/).first());
    await checker.getByRole('button', { name: 'Approve' }).click();
    await saysExactly(checker.getByTestId('approval-status'), 'Carried out');

    // the money is back where it came from, and the story says so
    expect(await customerBalance()).toBe(0);
    expect(await floatBalance()).toBeGreaterThan(floatBefore);
    await maker.goto(`/console/payments/${encodeURIComponent(paymentReference!)}`);
    await saysSo(maker.getByTestId('reversed-by'), 'reversed by');
    await screenshot(maker, 'payment-reversed');
  });

  it('6. a disabled webhook endpoint is enabled from the console and its held events reach the receiver exactly once', async () => {
    const endpoints = await p.call('GET', `/api/backoffice/webhooks/integrations/${integration.id}/endpoints`, { token: await adminApi() });
    const testEndpoint = (endpoints.body as Json[]).find((e) => e.mode === 'test');
    // set-up: the dispatcher disabled the endpoint after days of failures (as its health check does)
    await p.sql.query(
      `UPDATE webhooks.endpoints SET status = 'disabled', disabled_at = now(), disabled_reason = 'failing for 3 days' WHERE integration_id = $1`,
      [testEndpoint.endpointId],
    );
    heldEvents = [];
    for (const phone of ['+237690930021', '+237690930022']) {
      const requested = await p.call('POST', '/api/partners-public/connections/request', {
        headers: { authorization: `Bearer ${integration.testKey}` },
        body: { merchantPhone: phone, scopes: ['orders.write'] },
      });
      expect(requested.status).toBe(200);
      const activated = await p.call('POST', `/api/partners-public/test-helpers/connections/${requested.body.connectionId}/activate`, {
        headers: { authorization: `Bearer ${integration.testKey}` },
      });
      expect(activated.status).toBe(200);
      const row = await until('the event recorded by partners', async () => {
        const r = await p.sql.query(`SELECT id FROM partners.events WHERE subject_id = $1 AND type = 'connection.activated'`, [
          requested.body.connectionId,
        ]);
        return r.rows[0] as { id: string } | undefined;
      });
      heldEvents.push(row.id);
    }
    const statusOf = async (id: string) =>
      (await p.call('GET', `/api/backoffice/webhooks/events/${id}`, { token: await adminApi() })).body.event?.status as string | undefined;
    for (const id of heldEvents) await until(`event ${id} held`, async () => (await statusOf(id)) === 'held', 20_000);
    expect(heldEvents.map((id) => p.receiver.delivered(id))).toEqual([0, 0]);

    const page = admin.page;
    await open(page, /^Partners$/);
    await page.getByTestId(`integration-link-${integration.id}`).click();
    const endpoint = page.getByTestId('endpoint-test');
    await saysExactly(page.getByTestId('endpoint-test-status'), 'disabled');
    await saysSo(endpoint, 'failing for 3 days');
    await saysExactly(endpoint.getByRole('cell').nth(4), '2');
    await screenshot(page, 'partner-webhooks');
    await endpoint.getByRole('button', { name: 'Enable test endpoint' }).click();
    await saysExactly(page.getByTestId('endpoint-enabled'), 'The test endpoint is enabled; 2 held events sent again.');
    await saysExactly(page.getByTestId('endpoint-test-status'), 'enabled');

    for (const id of heldEvents) await until(`event ${id} delivered`, async () => (await statusOf(id)) === 'delivered', 20_000);
    expect(heldEvents.map((id) => p.receiver.delivered(id))).toEqual([1, 1]);
    // the log of one of them, attempt by attempt
    await page.reload();
    await page.getByTestId(`event-link-${heldEvents[0]}`).click();
    await saysSo(page.getByTestId('event-status'), /delivered/i);
    await saysSo(page.getByTestId('attempts-table'), '200');
    await screenshot(page, 'webhook-log');
    expect(heldEvents.map((id) => p.receiver.delivered(id))).toEqual([1, 1]);
  });

  it('7. the audit trail shows each of these actions, and its chain check says intact', async () => {
    // what the scenarios above did, each recorded under its route (an action filter is an exact match)
    const expected: Array<[string, string]> = [
      ['POST /api/orchestrator/admin/staff', 'ADMIN'],
      ['POST /api/backoffice/ledger/agents/:agentId/float-fundings', 'ADMIN'],
      ['GET /api/backoffice/approvals/:id', 'ADMIN'],
      ['POST /api/backoffice/approvals/:id/approve', 'COMPLIANCE'],
      ['POST /api/backoffice/ledger/corrections', 'COMPLIANCE'],
      ['GET /api/backoffice/people', 'SUPPORT'],
      ['GET /api/backoffice/people/:userId', 'SUPPORT'],
      ['GET /api/backoffice/transactions/:reference/story', 'SUPPORT'],
      ['POST /api/backoffice/webhooks/integrations/:integrationId/endpoints/:mode/enable', 'ADMIN'],
    ];
    const page = officer.page;
    await open(page, /^Audit trail$/);
    const table = page.getByTestId('audit-trail-table');
    const action = page.getByLabel(/^Action/);
    for (const [route, role] of expected) {
      await action.fill(route);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const rows = table.locator('tbody tr').filter({ hasText: route });
      await shows(rows);
      const texts = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
      expect({ route, actors: texts.some((t) => t.includes(role)) }).toEqual({ route, actors: true });
    }
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await saysSo(table, 'POST /api/backoffice/webhooks/integrations/:integrationId/endpoints/:mode/enable');
    await screenshot(page, 'audit-trail');

    await page.getByRole('button', { name: 'Verify chain' }).click();
    await saysSo(page.getByTestId('chain-intact'), 'The chain is intact');
    const check = await p.call('GET', '/api/backoffice/audit-trail/verify', { token: await adminApi() });
    expect(check.body.intact).toBe(true);
    await screenshot(page, 'audit-chain-check');
  });

  it('8. every screen of the navigation opens without a refusal, and each role sees only its screens', async () => {
    const navLabels = async (page: Page) =>
      (await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents()).map((t) => t.trim());
    // screens already pictured by the scenarios above, in the state they show best
    const pictured = new Set(['Home', 'People', 'Approvals', 'Audit trail', 'Staff users']);
    const page = admin.page;
    const labels = await navLabels(page);
    expect(labels).toEqual(expect.arrayContaining(['Home', 'People', 'Payments', 'Approvals', 'Partners', 'Audit trail', 'Staff users']));
    for (const label of labels) {
      await open(page, new RegExp(`^${label}$`));
      // each screen loads what it shows; none answers a refusal to an administrator
      await saysSo(page.locator('main'), /^(?![\s\S]*Loading…)/);
      await counts(page.getByTestId('error-notice'), 0);
      if (!pictured.has(label)) await screenshot(page, `screen-${label.toLowerCase().replace(/\W+/g, '-')}`);
    }

    // support: no approvals, no staff, no audit trail; the officer: no staff users
    const support = windows[2];
    const supportLabels = await navLabels(support.page);
    expect(supportLabels).toEqual(expect.arrayContaining(['Home', 'People', 'Payments', 'Partners']));
    for (const hidden of ['Approvals', 'Staff users', 'Audit trail']) expect(supportLabels).not.toContain(hidden);
    const officerLabels = await navLabels(officer.page);
    expect(officerLabels).toEqual(expect.arrayContaining(['Approvals', 'Audit trail', 'Integrity checks']));
    expect(officerLabels).not.toContain('Staff users');
    // a screen the role cannot reach, asked for by its address, says why in words
    await support.page.goto('/console/approvals');
    await saysSo(support.page.getByTestId('error-notice'), 'approvals.read');
  });
});
