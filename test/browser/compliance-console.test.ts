import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { authApp } from '../../apps/auth/src/auth.app';
import { ledgerWalletsApp } from '../../apps/ledger-wallets/src/ledger-wallets.app';
import { bootPartnersAndGateway } from '../../apps/orchestrator/test/backoffice-webhooks-platform';
import { ReconciliationSettings } from '../../apps/ledger-wallets/src/reconciliation/trust-accounts';
import { webhookDispatcherApp } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.app';
import { DeferredForwarder, E2E_ADMIN } from '../e2e/partners-support';
import { type RunningApp, boot } from '../support/boot';
import { TEST_ADMIN_TOTP_SECRET, enrolmentCodeIn } from '../support/staff-sign-in';
import { type TestDatabase, callerKey, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';
import {
  OperatorWindow,
  StaffDriver,
  counts,
  launchChromium,
  saysExactly,
  saysSo,
  screenshot,
  screenshotFor,
  shows,
} from './console-browser';

/**
 * The compliance screens of the operators' console (docs/compliance.md) in a real headless Chromium
 * against the five real services: what a compliance officer does with the mouse and keyboard, checked
 * by what the screen says and by what the platform did. The scenarios run in order and share the
 * people the set-up creates, as a working day would: the bank statement is reconciled first, while
 * the only money in circulation is the agent's float.
 *
 * Screenshots land in test/browser/artifacts/; UPDATE_SCREENSHOTS=1 also copies them to
 * docs/images/compliance-*.png for docs/compliance.md.
 */

jest.setTimeout(240_000);

/** an answer of the platform, read field by field */
type Json = any;

const PIN = '2580';
const OFFICER = { phone: '+237690950001', firstName: 'Clara', lastName: 'Mbida' };
const ADMIN2 = { phone: '+237690950002', pin: '3691' };
const AGENT_PHONE = '+237690950010';
const PAYER_PHONE = '+237690950011';
const RELAY_PHONE = '+237690950012';
const MERCHANT_PHONE = '+237690950013';
const MERCHANT_NAME = 'Boutique Akwa';
const TRUST_ACCOUNT = 'CM2110005000010123456789012';
/** the agent's float, deposited once at the bank and funded twice on the platform by mistake: the difference to find */
const FLOAT_AMOUNT = 250_000;
/** The platform's days (statements, bank statements, reports): West Africa Time, UTC+01:00. */
const watDay = () => new Date(Date.now() + 3_600_000).toISOString().slice(0, 10);

/**
 * The five services on one cloned database, as the other console tests run them, with a trust bank
 * account configured in the ledger (LEDGER_TRUST_ACCOUNTS) so that statements can be imported.
 */
class CompliancePlatform {
  db!: TestDatabase;
  readonly redis = createTestRedis();
  private readonly forwarder = new DeferredForwarder();
  readonly apps: RunningApp[] = [];
  authUrl = '';
  ledger!: RunningApp;
  gateway!: RunningApp;
  sql!: Client;

  async start(): Promise<void> {
    this.db = await createTestDatabase();
    await this.forwarder.start();
    const env = (service: Parameters<typeof serviceEnv>[0], extra: Record<string, string> = {}) =>
      serviceEnv(service, this.db, this.redis, extra);
    const keep = <A extends RunningApp>(a: A): A => (this.apps.push(a), a);
    const [auth, dispatcher] = await Promise.all([
      boot(authApp, env('auth', { BOOTSTRAP_ADMIN_PHONE: E2E_ADMIN.phone, BOOTSTRAP_ADMIN_PIN: E2E_ADMIN.pin }), { listen: true }).then(
        keep,
      ),
      boot(webhookDispatcherApp, env('webhook-dispatcher'), { listen: true }).then(keep),
    ]);
    this.authUrl = auth.url;
    const ledger = (this.ledger = keep(
      await boot(
        ledgerWalletsApp,
        env('ledger-wallets', {
          AUTH_URL: auth.url,
          LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
          LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
          LEDGER_TRUST_ACCOUNTS: `XAF:${TRUST_ACCOUNT}`,
        }),
        { listen: true },
      ),
    ));
    // A bank statement covers a day that is over (the bank closes it at midnight): the officer
    // imports the statement of a day the morning after. Here the statement of today is imported
    // today, so the reconciliation's idea of now (and only it: payments and the database keep the
    // real time) is moved two days on, as apps/ledger-wallets/test/reconciliation.test.ts does.
    ledger.app.get(ReconciliationSettings).now = () => new Date(Date.now() + 2 * 86_400_000);
    this.gateway = await bootPartnersAndGateway({ env, keep, forwarder: this.forwarder, auth, ledger, dispatcher });
    this.sql = new Client({ connectionString: this.db.adminUrl });
    await this.sql.connect();
  }

  async stop(): Promise<void> {
    await this.sql?.end();
    for (const app of [...this.apps].reverse()) await app.close();
    await this.forwarder.stop();
    await this.redis.flush();
    await this.db?.drop();
  }

  async call(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: Json }> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.gateway.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    let body: Json = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // CSV, HTML
    }
    return { status: res.status, body };
  }

  /** A second administrator, made through auth's internal steps (the staff route makes no administrator). */
  async secondAdmin(phone: string, pin: string): Promise<void> {
    const headers = { 'x-service-key': callerKey('orchestrator'), 'content-type': 'application/json' };
    const idp = await fetch(`${this.authUrl}/auth/internal/create-idp-user`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ phone, pin }),
    });
    const { idpUserId } = (await idp.json()) as { idpUserId: string };
    const local = await fetch(`${this.authUrl}/auth/internal/create-local-user`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ idpUserId, roles: ['ADMIN'] }),
    });
    if (local.status !== 201) throw new Error(`create-local-user ${local.status} ${await local.text()}`);
  }
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined | false | null>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A camt.053 statement of the trust account, as the bank sends it. */
function camt053(o: {
  id: string;
  opening: number;
  closing: number;
  day: string;
  entries: Array<{ amount: number; remittance: string }>;
}): string {
  const bal = (code: string, amount: number) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="XAF">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${o.day}</Dt></Dt></Bal>`;
  const entries = o.entries
    .map(
      (e, i) =>
        `<Ntry><NtryRef>BNK${i + 1}</NtryRef><Amt Ccy="XAF">${e.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>${o.day}</Dt></BookgDt><ValDt><Dt>${o.day}</Dt></ValDt>` +
        `<NtryDtls><TxDtls><RmtInf><Ustrd>${e.remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n    ');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${o.id}</MsgId><CreDtTm>${o.day}T18:00:00</CreDtTm></GrpHdr>
    <Stmt>
    <Id>${o.id}</Id>
    <Acct><Id><IBAN>${TRUST_ACCOUNT}</IBAN></Id><Ccy>XAF</Ccy></Acct>
    ${bal('OPBD', o.opening)}
    ${bal('CLBD', o.closing)}
    ${entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

describe('the compliance screens of the operators console, in a browser', () => {
  const p = new CompliancePlatform();
  let staff: StaffDriver;
  let browser: Browser;
  const windows: OperatorWindow[] = [];
  let officer: OperatorWindow;
  let admin: OperatorWindow | undefined;
  let agent: { userId: string; agentId: string; token: string; floatAccount: string };
  let payer: { userId: string; token: string };
  let relay: { userId: string; token: string };
  let merchant: { userId: string; merchantId: string; token: string };
  /** the float funding the set-up makes, as the ledger recorded it, and the same funding made again by mistake */
  let funding: { transactionId: string; referenceId: string };
  let duplicate: { transactionId: string; referenceId: string };

  const adminToken = () => staff.token(E2E_ADMIN.phone, E2E_ADMIN.pin);
  const officerToken = () => staff.token(OFFICER.phone, PIN);

  async function register(kind: 'agent' | 'customer' | 'merchant', phone: string, firstName: string): Promise<Json> {
    const path = {
      agent: '/api/orchestrator/auth/register/agent',
      customer: '/api/orchestrator/auth/register',
      merchant: '/api/orchestrator/auth/register/merchant',
    }[kind];
    const extra = kind === 'merchant' ? { businessName: MERCHANT_NAME, category: 'RETAIL' } : {};
    const res = await p.call('POST', path, { body: { phone, pin: PIN, firstName, lastName: 'Ndongo', countryCode: 'CM', ...extra } });
    if (res.status !== 201) throw new Error(`register ${kind} ${res.status} ${JSON.stringify(res.body)}`);
    const login = await p.call('POST', '/api/auth/login', { body: { phone, pin: PIN } });
    return { ...res.body, token: login.body.token };
  }

  /** Create → verify PIN → confirm, as a customer's or an agent's app does. */
  async function pay(token: string, body: Record<string, unknown>): Promise<Json> {
    const created = await p.call('POST', '/api/v1/intents', { token, body: { idempotencyKey: randomUUID(), ...body } });
    if (created.status !== 201) throw new Error(`intent ${created.status} ${JSON.stringify(created.body)}`);
    const pin = await p.call('POST', `/api/v1/intents/${created.body.intentId}/verify-pin`, { token, body: { pin: PIN } });
    if (pin.status >= 300) throw new Error(`verify-pin ${pin.status} ${JSON.stringify(pin.body)}`);
    const confirmed = await p.call('POST', `/api/v1/intents/${created.body.intentId}/confirm`, { token });
    if (confirmed.body?.status !== 'SUCCEEDED') throw new Error(`confirm ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    return confirmed.body;
  }

  /** The administrator's window, signed in once: the second person of the four-eyes decisions. */
  async function adminPage(): Promise<Page> {
    if (!admin) {
      admin = await newWindow();
      await staff.signIn(admin.page, E2E_ADMIN.phone, E2E_ADMIN.pin);
    }
    return admin.page;
  }

  async function newWindow(): Promise<OperatorWindow> {
    const window = await OperatorWindow.open(browser, p.gateway.url);
    windows.push(window);
    return window;
  }

  /** Submits a request through /api as `maker` and approves it as `checker` (set-up the test does not watch). */
  async function approveAs(checker: string, requestId: string): Promise<Json> {
    const res = await p.call('POST', `/api/backoffice/approvals/${requestId}/approve`, { token: checker, body: { reason: 'Checked' } });
    if (res.status !== 200 || res.body.status !== 'EXECUTED') throw new Error(`approve ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  beforeAll(async () => {
    await p.start();
    staff = new StaffDriver((method, path, options) => p.call(method, path, options), TEST_ADMIN_TOTP_SECRET, enrolmentCodeIn);
    browser = await launchChromium();
    const adminApi = await adminToken();
    // the officer is the platform's first checker, whom the bootstrap administrator creates alone
    const created = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: adminApi,
      body: { ...OFFICER, pin: PIN, countryCode: 'CM', role: 'COMPLIANCE' },
    });
    expect(created.status).toBe(201);
    await officerToken(); // enrols the officer's authenticator
    await p.secondAdmin(ADMIN2.phone, ADMIN2.pin);

    const a = await register('agent', AGENT_PHONE, 'Kofi');
    const wallet = await p.call('GET', '/api/orchestrator/me/wallet', { token: a.token });
    const floatAccount = (wallet.body.balances as Json[]).find((b) => b.currency === 'XAF' && b.accountType === 'agent').accountId;
    agent = { userId: a.userId, agentId: a.agentId, token: a.token, floatAccount };
    const c1 = await register('customer', PAYER_PHONE, 'Awa');
    payer = { userId: c1.userId, token: c1.token };
    const c2 = await register('customer', RELAY_PHONE, 'Jean');
    relay = { userId: c2.userId, token: c2.token };
    const m = await register('merchant', MERCHANT_PHONE, 'Brice');
    merchant = { userId: m.userId, merchantId: m.merchantId, token: m.token };

    // the agent's opening float, on four eyes: the administrator asks, the officer approves; then the
    // same funding once more by mistake (the bank received the money once)
    const fund = async (reason: string) => {
      const submitted = await p.call('POST', `/api/backoffice/ledger/agents/${agent.agentId}/float-fundings`, {
        token: adminApi,
        body: { amount: FLOAT_AMOUNT, currency: 'XAF', reason },
      });
      expect(submitted.status).toBe(202);
      await approveAs(await officerToken(), submitted.body.id);
      const corrections = await p.call('GET', '/api/backoffice/ledger/corrections?status=EXECUTED', { token: adminApi });
      const executed = (corrections.body as Json[]).find((x) => x.accountId === agent.floatAccount && x.reason === reason);
      expect(executed.referenceId).toEqual(expect.any(String));
      return { transactionId: executed.transactionId as string, referenceId: executed.referenceId as string };
    };
    funding = await fund('Opening float, bank deposit slip 5521');
    duplicate = await fund('Opening float of agent Kofi (slip 5521)');
  }, 180_000);

  afterAll(async () => {
    for (const window of windows) await window.close().catch(() => undefined);
    await browser?.close();
    await p.stop();
  });

  afterEach(async () => {
    // what each window shows at the end of a scenario, and what the pages threw
    const scenario = /browser (\w+)\./.exec(expect.getState().currentTestName ?? '')?.[1] ?? 'scenario';
    for (const [i, window] of windows.entries())
      await screenshot(window.page, `compliance-end-of-${scenario}-window-${i + 1}`, false).catch(() => undefined);
    for (const window of windows) {
      if (window.problems.length > 0) process.stderr.write(`browser problems (${scenario}):\n${window.problems.splice(0).join('\n')}\n`);
    }
  });

  it('1. the officer imports a bank statement with a difference, and resolves it through four eyes', async () => {
    officer = await newWindow();
    const page = officer.page;
    await staff.signIn(page, OFFICER.phone, PIN);
    await staff.open(page, /^Float reconciliation$/);

    // the bank saw the float deposit once; the platform funded it twice
    const statement = camt053({
      id: `STMT-${watDay()}-01`,
      opening: 0,
      closing: FLOAT_AMOUNT,
      day: watDay(),
      entries: [{ amount: FLOAT_AMOUNT, remittance: `Versement float agent Kofi ${funding.referenceId}` }],
    });
    await page.getByLabel('Statement file').setInputFiles({ name: 'statement.xml', mimeType: 'text/xml', buffer: Buffer.from(statement) });
    await saysSo(page.getByText(/statement\.xml, \d+ characters/), 'statement.xml');
    await screenshotFor(page, 'reconciliation-import', 'compliance-reconciliation-import');
    await page.getByRole('button', { name: 'Import the statement' }).click();
    await saysSo(page.getByTestId('statement-imported'), `STMT-${watDay()}-01`);
    // the same file again is refused in words, and changes nothing
    await page.getByLabel('Statement file').setInputFiles({ name: 'statement.xml', mimeType: 'text/xml', buffer: Buffer.from(statement) });
    await page.getByRole('button', { name: 'Import the statement' }).click();
    await saysSo(page.getByTestId('error-code'), 'BANK_STATEMENT_DUPLICATE');
    const statements = await p.call('GET', '/api/v1/compliance/reconciliation/statements', { token: await officerToken() });
    expect(statements.body).toHaveLength(1);

    await page.getByRole('button', { name: `Reconcile STMT-${watDay()}-01` }).click();
    await shows(page.getByTestId('recon-run'));
    await saysExactly(page.getByTestId('run-status'), 'differences');
    await saysSo(page.getByTestId('recon-difference'), /^−250[\s\u202f]000 XAF$/);
    await saysSo(page.getByTestId('matches'), funding.referenceId);
    await saysSo(page.getByTestId('unmatched-movements'), duplicate.referenceId);
    const runId = /runs\/([0-9a-f-]{36})/.exec(page.url())![1];
    const run = (await p.call('GET', `/api/v1/compliance/reconciliation/runs/${runId}`, { token: await officerToken() })).body;
    expect([run.status, run.bankClosing, run.circulation, run.difference]).toEqual([
      'DIFFERENCES',
      FLOAT_AMOUNT,
      2 * FLOAT_AMOUNT,
      -FLOAT_AMOUNT,
    ]);
    await screenshotFor(page, 'reconciliation-run', 'compliance-reconciliation-run');

    // each alert acknowledged: someone is on it
    for (const kind of ['BALANCE_GAP', 'UNMATCHED_LEDGER_MOVEMENT']) {
      const row = page.getByTestId(`recon-alert-${kind}`);
      await row.getByRole('button', { name: 'Acknowledge…' }).click();
      const form = page.getByRole('form', { name: 'Acknowledge the alert' });
      await form.getByLabel(/^Note/).fill('Looking for a second deposit slip');
      await form.getByRole('button', { name: 'Submit' }).click();
      await page.getByRole('button', { name: 'Close' }).click();
      await saysSo(row, 'Acknowledged');
    }

    // the fix: the officer asks for the duplicate funding to be reversed, the administrator approves it
    await staff.open(page, /^Corrections and float$/);
    await page.getByRole('button', { name: 'New correction or reversal…' }).click();
    const form = page.getByRole('form', { name: 'Submit a ledger correction' });
    await form.getByText('Reverse a transaction').click();
    await form.getByLabel(/^Transaction reference or id/).fill(duplicate.referenceId);
    await form.getByLabel(/^Reason/).fill('Float funded twice for one bank deposit (statement line 1)');
    await form.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    const approvalPath = (await page.getByTestId('approval-link').getAttribute('href'))!;
    await page.getByRole('button', { name: 'Close' }).click();

    const checker = await adminPage();
    await checker.goto(approvalPath);
    await saysExactly(checker.getByTestId('approval-status'), 'Waiting for a checker');
    await checker.getByLabel(/^Reason for your decision/).fill('One slip only: 5521');
    await checker.getByRole('button', { name: 'Approve' }).click();
    await saysExactly(checker.getByTestId('approval-status'), 'Carried out');
    const correction = await until('the executed reversal', async () => {
      const list = await p.call('GET', '/api/backoffice/ledger/corrections?status=EXECUTED', { token: await officerToken() });
      return (list.body as Json[]).find((x) => x.kind === 'REVERSAL' && x.reversalOf?.referenceId === duplicate.referenceId);
    });
    expect(correction.checker.id).not.toBe(correction.maker.id);

    // back on the run: the movement resolved by that reversal, the gap accepted with a note
    await page.goto(`/console/compliance/reconciliation/runs/${runId}`);
    const movementRow = page.getByTestId('recon-alert-UNMATCHED_LEDGER_MOVEMENT');
    await movementRow.getByRole('button', { name: 'Resolve…' }).click();
    const resolve = page.getByRole('form', { name: 'Resolve the alert' });
    await staff.choose(resolve, /^Carried-out correction/, /^Reversal — Float funded twice/);
    await resolve.getByLabel(/^Reason/).fill('The duplicate funding is reversed');
    await screenshotFor(page, 'reconciliation-resolve', 'compliance-reconciliation-resolve');
    await resolve.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await saysSo(movementRow, 'Resolved');
    await saysSo(movementRow, `by correction ${correction.id.slice(0, 8)}`);

    const gapRow = page.getByTestId('recon-alert-BALANCE_GAP');
    await gapRow.getByRole('button', { name: 'Resolve…' }).click();
    const accept = page.getByRole('form', { name: 'Resolve the alert' });
    await accept.getByText('Accept with a note').click();
    await accept.getByLabel(/^Reason/).fill(`The gap is the duplicate funding, reversed by ${correction.referenceId}`);
    await accept.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await saysSo(gapRow, 'Resolved');
    await screenshotFor(page, 'reconciliation-resolved', 'compliance-reconciliation-resolved');

    // what the platform recorded: both alerts resolved, one by the four-eyes reversal
    const alerts = (await p.call('GET', `/api/v1/compliance/reconciliation/alerts?runId=${runId}`, { token: await officerToken() }))
      .body as Json[];
    const byKind = Object.fromEntries(alerts.map((x) => [x.kind, x]));
    expect(byKind.UNMATCHED_LEDGER_MOVEMENT.status).toBe('RESOLVED');
    expect(byKind.UNMATCHED_LEDGER_MOVEMENT.decisions.map((d: Json) => d.decision)).toEqual(['ACKNOWLEDGED', 'CORRECTED']);
    expect(byKind.UNMATCHED_LEDGER_MOVEMENT.decisions[1].correctionId).toBe(correction.id);
    expect(byKind.BALANCE_GAP.decisions.map((d: Json) => d.decision)).toEqual(['ACKNOWLEDGED', 'ACCEPTED']);

    // the same statement reconciled again: the funding and its reversal cancel out, nothing differs
    await page.getByRole('link', { name: 'All statements, runs and alerts' }).click();
    await page.getByRole('button', { name: `Reconcile STMT-${watDay()}-01` }).click();
    await saysExactly(page.getByTestId('run-status'), 'balanced');
    await saysSo(page.getByTestId('recon-difference'), /^0 XAF$/);
    await saysSo(page.getByTestId('matches'), duplicate.referenceId);
    await counts(page.getByTestId('recon-alerts-table').locator('tbody tr'), 0);
    await screenshotFor(page, 'reconciliation-balanced', 'compliance-reconciliation-balanced');
  });

  it('2. the officer works a monitoring alert into a case and produces a suspicion report, filed then confirmed in writing', async () => {
    // the agent cashes in and out three times for the same customer: AGENT_CYCLING with the rules of version 1
    const cycle: string[] = [];
    for (let i = 0; i < 3; i++) {
      cycle.push((await pay(agent.token, { type: 'CASH_IN', amount: 20_000, clientPhone: RELAY_PHONE })).referenceId);
      const code = await p.call('POST', '/api/v1/withdrawal-qr', { token: relay.token, body: { currency: 'XAF', amount: 15_000 } });
      expect(code.status).toBe(201);
      cycle.push((await pay(agent.token, { type: 'CASH_OUT', amount: 15_000, qrToken: code.body.qrToken })).referenceId);
    }
    const raised = await until('the AGENT_CYCLING alert', async () => {
      const alerts = await p.call('GET', `/api/v1/compliance/alerts?subjectUserId=${agent.userId}`, { token: await officerToken() });
      return (alerts.body.items as Json[] | undefined)?.find((x) => x.rule === 'AGENT_CYCLING');
    });

    const page = officer.page;
    // the officer's home page counts the case waiting for someone
    await staff.open(page, /^Home$/);
    await saysExactly(page.getByTestId('home-compliance-cases'), '1 case not closed');
    await saysExactly(page.getByTestId('home-compliance-recon'), '0 reconciliation alerts not resolved');
    await staff.open(page, /^Monitoring alerts$/);
    await staff.choose(page, /^Rule/, 'Agent cycling cash with one customer');
    await page.getByRole('button', { name: 'Filter' }).click();
    const row = page.getByTestId('monitoring-alerts-table').locator('tbody tr').filter({ hasText: raised.caseReference });
    await counts(row, 1);
    await saysSo(row, '3 cash-ins');
    await screenshotFor(page, 'monitoring-alerts', 'compliance-alerts');

    // the case: nobody on it yet; the officer takes it
    await row.getByTestId(`alert-case-${raised.id}`).click();
    await shows(page.getByTestId('case-detail'));
    await saysExactly(page.getByTestId('case-status'), 'Open, nobody assigned');
    expect(await page.getByTestId('case-subject-link').getAttribute('href')).toBe(`/console/people/${agent.userId}`);
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByRole('form', { name: 'Take this case' }).getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await saysExactly(page.getByTestId('case-assignee'), 'assigned to you');
    await saysExactly(page.getByTestId('case-status'), 'In review');
    const operations = page.getByTestId('case-operations');
    for (const reference of cycle) await saysSo(operations, reference);
    expect(await operations.getByRole('link', { name: cycle[0] }).getAttribute('href')).toBe(`/console/payments/${cycle[0]}`);

    await page.getByRole('button', { name: 'Add a note…' }).click();
    const note = page.getByRole('form', { name: 'Add a note to the case' });
    await note.getByLabel(/^Note/).fill('Same customer each time, within the hour; the agent says she is his cousin.');
    await note.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Attach evidence…' }).click();
    const evidence = page.getByRole('form', { name: 'Attach evidence to the case' });
    await evidence.getByLabel(/^Transaction reference/).fill(cycle[0]);
    await evidence.getByLabel(/^Note/).fill('The first cash-in of the series');
    await evidence.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await saysSo(page.getByTestId('case-evidence'), cycle[0]);
    await saysSo(page.getByTestId('case-history'), 'Evidence attached');
    await saysSo(page.getByTestId('case-history'), 'Note');
    await screenshotFor(page, 'case', 'compliance-case');

    // the decision: a suspicion report, from the case's facts and the officer's words
    await page.getByRole('button', { name: 'Suspicion report…' }).click();
    const str = page.getByRole('form', { name: 'Make a suspicion report' });
    await str.getByLabel(/^Grounds for suspicion/).fill('Cash cycled three times with one customer in a day\nNo economic reason given');
    await str
      .getByLabel(/^Narrative/)
      .fill(
        'Agent Kofi Ndongo credited Jean Ndongo 20 000 F three times and paid 15 000 F back out each time within minutes, on the same day.',
      );
    await screenshotFor(page, 'suspicion-report-form', 'compliance-suspicion-report-form');
    await str.getByRole('button', { name: 'Submit' }).click();
    const link = page.getByTestId('suspicion-report-link');
    await saysSo(link, /^STR-/);
    const reference = (await link.innerText()).trim();
    await link.click();

    await shows(page.getByTestId('report-detail'));
    await saysExactly(page.getByTestId('report-reference'), reference);
    await saysExactly(page.getByTestId('report-state'), 'Generated');
    await saysSo(page.getByTestId('report-narrative'), 'three times');
    for (const ref of cycle) await saysSo(page.getByTestId('report-operations'), ref);
    const reportId = /reports\/([0-9a-f-]{36})/.exec(page.url())![1];
    const closed = (await p.call('GET', `/api/v1/compliance/cases/${raised.caseId}`, { token: await officerToken() })).body;
    expect([closed.status, closed.decision, closed.decisionReportId]).toEqual(['CLOSED', 'SUSPICION_REPORT', reportId]);
    await screenshotFor(page, 'suspicion-report', 'compliance-suspicion-report');

    // its documents, exactly as stored
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('button', { name: 'Open printable page' }).click(),
    ]);
    await tab.waitForLoadState();
    await saysSo(tab.locator('body'), reference);
    await tab.close();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const stored = await p.call('GET', `/api/v1/compliance/reports/${reportId}/document?format=csv`, { token: await officerToken() });
    expect(readFileSync((await download.path())!, 'utf8')).toBe(stored.body);

    // filed by phone, then confirmed in writing: the 48-hour clock starts and stops
    await page.getByRole('button', { name: 'Record the filing…' }).click();
    await page.getByRole('form', { name: 'Record that the report was filed' }).getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await saysExactly(page.getByTestId('report-state'), 'Filed, written confirmation due');
    await saysSo(page.getByTestId('report-due'), 'written confirmation due');
    await screenshotFor(page, 'suspicion-report-filed', 'compliance-suspicion-report-filed');
    await page.getByRole('button', { name: 'Record the written confirmation…' }).click();
    const letter = page.getByRole('form', { name: 'Record the written confirmation' });
    await letter.getByLabel(/^Reference of the letter/).fill('ANIF/2026/11/0412');
    await letter.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await saysExactly(page.getByTestId('report-state'), 'Confirmed in writing');
    const report = (await p.call('GET', `/api/v1/compliance/reports/${reportId}`, { token: await officerToken() })).body;
    expect([report.state, report.filing.channel, report.writtenConfirmation.reference, report.overdue]).toEqual([
      'CONFIRMED',
      'PHONE',
      'ANIF/2026/11/0412',
      false,
    ]);

    // the reports list, with yesterday's daily threshold report generated on demand
    await staff.open(page, /^Regulatory reports$/);
    await page.getByRole('button', { name: 'Generate the daily report' }).click();
    await saysSo(page.getByTestId('report-reference'), /^DTR-/);
    await staff.open(page, /^Regulatory reports$/);
    await saysSo(page.getByTestId('reports-table'), reference);
    await saysSo(page.getByTestId('reports-table'), 'Confirmed in writing');
    await screenshotFor(page, 'reports', 'compliance-reports');
  });

  it('3. the chain verification catches an entry edited by raw SQL, and names it', async () => {
    const page = officer.page;
    await staff.open(page, /^Integrity checks$/);
    await page.getByRole('button', { name: 'Verify the ledger chain' }).click();
    await saysSo(page.getByTestId('ledger-chain-intact'), 'every link sound');

    // a superuser rewrites the float funding's entry on the agent's account, every trigger off
    const entry = (
      await p.sql.query(`SELECT id, amount::text AS amount FROM ledger.ledgers WHERE transaction_id = $1 AND account_id = $2`, [
        funding.transactionId,
        agent.floatAccount,
      ])
    ).rows[0] as { id: string; amount: string };
    const raw = async (sql: string) => {
      await p.sql.query('BEGIN');
      await p.sql.query('SET LOCAL session_replication_role = replica');
      await p.sql.query(sql, [entry.id]);
      await p.sql.query('COMMIT');
    };
    await raw(`UPDATE ledger.ledgers SET amount = amount + 100000 WHERE id = $1`);
    try {
      await page.getByRole('button', { name: 'Verify the ledger chain' }).click();
      await saysSo(page.getByTestId('ledger-chain-broken'), 'First broken link');
      await saysExactly(page.getByTestId('ledger-chain-break-kind'), 'EDITED');
      await saysSo(page.getByTestId('ledger-chain-break-reference'), funding.referenceId);
      await saysSo(page.getByTestId('ledger-chain-break'), entry.id);
      await page.getByTestId('ledger-chain-broken').scrollIntoViewIfNeeded();
      await screenshotFor(page, 'ledger-chain-broken', 'compliance-ledger-chain-broken');
      const runs = (await p.call('GET', '/api/v1/compliance/ledger-chain/verifications', { token: await officerToken() })).body as Json[];
      expect([runs[0].status, runs[0].firstBreak.kind, runs[0].firstBreak.entryId]).toEqual(['BROKEN', 'EDITED', entry.id]);
      await saysSo(page.getByTestId('ledger-chain-table').locator('tbody tr').first(), 'BROKEN');
    } finally {
      await raw(`UPDATE ledger.ledgers SET amount = ${entry.amount} WHERE id = $1`);
    }
    await page.getByRole('button', { name: 'Verify the ledger chain' }).click();
    await saysSo(page.getByTestId('ledger-chain-intact'), 'every link sound');
  });

  it("4. an operator opens a merchant's statement from its 360 view and downloads the CSV", async () => {
    // a customer pays the shop twice (money from a cash-in at the agent)
    await pay(agent.token, { type: 'CASH_IN', amount: 20_000, clientPhone: PAYER_PHONE });
    const payments = [await pay(payer.token, { type: 'TRANSFER', amount: 4_500, clientPhone: MERCHANT_PHONE })];
    payments.push(await pay(payer.token, { type: 'TRANSFER', amount: 3_000, clientPhone: MERCHANT_PHONE }));

    const page = officer.page;
    await staff.open(page, /^People$/);
    await page.getByLabel(/^Phone, name, user id/).fill(MERCHANT_PHONE);
    await page.getByLabel(/^Phone, name, user id/).press('Enter');
    const row = page.getByTestId('people-table').getByRole('row').filter({ hasText: MERCHANT_PHONE });
    await counts(row, 1);
    await row.getByRole('link').first().click();
    await page.getByTestId('merchant-statement-link').click();
    // yesterday by default; today's payments: today
    await page.getByLabel(/^Day/).fill(watDay());
    await page.getByRole('button', { name: 'Show the statement' }).click();
    await saysSo(page.getByTestId('statement-title'), `${MERCHANT_NAME}: Statement of ${watDay()}`);
    const lines = page.getByTestId('statement-lines');
    for (const payment of payments) await saysSo(lines, payment.referenceId);
    await saysSo(page.getByTestId('statement-opening'), /^0 XAF$/);
    await saysSo(page.getByTestId('statement-closing'), /^7[\s\u202f]500 XAF$/);
    await screenshotFor(page, 'merchant-statement', 'compliance-merchant-statement');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    for (const payment of payments) expect(csv).toContain(payment.referenceId);
    // the bytes the platform serves the operator, and the merchant itself through /api
    const query = `date=${watDay()}&format=csv`;
    const operatorCsv = await p.call('GET', `/api/backoffice/merchants/${merchant.merchantId}/statements?${query}`, {
      token: await officerToken(),
    });
    const merchantCsv = await p.call('GET', `/api/orchestrator/merchants/me/statements?${query}`, { token: merchant.token });
    expect(csv).toBe(operatorCsv.body);
    expect(merchantCsv.body).toBe(operatorCsv.body);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
  });

  it('5. a second case is closed by a freeze: submitted by the officer, approved by another, and the agent is frozen', async () => {
    // the same agent cycles cash with another customer: a new alert, and a new case (the first is closed)
    for (let i = 0; i < 3; i++) {
      await pay(agent.token, { type: 'CASH_IN', amount: 10_000, clientPhone: PAYER_PHONE });
      const code = await p.call('POST', '/api/v1/withdrawal-qr', { token: payer.token, body: { currency: 'XAF', amount: 5_000 } });
      expect(code.status).toBe(201);
      await pay(agent.token, { type: 'CASH_OUT', amount: 5_000, qrToken: code.body.qrToken });
    }
    const open = await until('the second case', async () => {
      const cases = await p.call('GET', `/api/v1/compliance/cases?subjectUserId=${agent.userId}&status=OPEN`, {
        token: await officerToken(),
      });
      return (cases.body.items as Json[] | undefined)?.[0];
    });

    const page = officer.page;
    await staff.open(page, /^Cases$/);
    await page.getByTestId(`case-link-${open.reference}`).click();
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByRole('form', { name: 'Take this case' }).getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Freeze the subject…' }).click();
    const form = page.getByRole('form', { name: 'Freeze the subject' });
    await form.getByLabel(/^Note/).fill('Second cycling series in a day after a suspicion report');
    await form.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    const requestPath = (await page.getByTestId('approval-link').getAttribute('href'))!;
    await page.getByRole('button', { name: 'Close' }).click();
    await saysExactly(page.getByTestId('case-status'), 'Decision waiting for approval');
    expect(await page.getByTestId('case-request-link').getAttribute('href')).toBe(requestPath);
    await screenshotFor(page, 'case-freeze-pending', 'compliance-case-freeze-pending');
    const before = await p.call('GET', `/api/backoffice/people/${agent.userId}`, { token: await officerToken() });
    expect(before.body.status).toBe('active');

    // the administrator, another holder of compliance.monitoring, approves it from the inbox
    const checker = await adminPage();
    await checker.goto(requestPath);
    await saysSo(checker.getByTestId('approval-facts'), 'Freeze decided on a compliance case');
    await checker.getByLabel(/^Reason for your decision/).fill('Agreed: two series in a day');
    await checker.getByRole('button', { name: 'Approve' }).click();
    await saysExactly(checker.getByTestId('approval-status'), 'Carried out');

    await page.reload();
    await saysExactly(page.getByTestId('case-status'), 'Closed');
    await saysSo(page.getByTestId('case-decision'), 'Decided: Frozen');
    const closed = (await p.call('GET', `/api/v1/compliance/cases/${open.id}`, { token: await officerToken() })).body;
    expect([closed.status, closed.decision, `/console/approvals/${closed.decisionRequestId}`]).toEqual(['CLOSED', 'FREEZE', requestPath]);
    const after = await p.call('GET', `/api/backoffice/people/${agent.userId}`, { token: await officerToken() });
    expect(after.body.status).toBe('frozen');
  });

  it('6. the officer proposes new monitoring thresholds, which wait for another compliance officer', async () => {
    const page = officer.page;
    await staff.open(page, /^Monitoring alerts$/);
    await saysSo(page.getByTestId('rules-version'), 'Version 1');
    await page.getByRole('button', { name: 'Propose new thresholds…' }).click();
    const form = page.getByRole('form', { name: 'Propose a new version of the monitoring rules' });
    const rules = form.getByLabel(/^Rules/);
    const document = JSON.parse(await rules.inputValue());
    expect(document.agentCycling.minCycles).toBe(3);
    await rules.fill(JSON.stringify({ ...document, agentCycling: { ...document.agentCycling, minCycles: 4 } }, null, 2));
    await form.getByLabel(/^Reason/).fill('Three cycles alert too often on rural agents (review of November)');
    await form.getByRole('button', { name: 'Submit' }).click();
    await saysSo(page.getByTestId('submitted-approval'), 'another person must approve it');
    const requestPath = (await page.getByTestId('approval-link').getAttribute('href'))!;
    const request = (
      await p.call('GET', requestPath.replace('/console/approvals/', '/api/backoffice/approvals/'), { token: await officerToken() })
    ).body.request;
    expect([request.action, request.status]).toEqual(['CONFIG_CHANGE', 'PENDING']);
    const inForce = (await p.call('GET', '/api/v1/compliance/monitoring/rules', { token: await officerToken() })).body;
    expect([inForce.version, inForce.document.agentCycling.minCycles]).toEqual([1, 3]);
    await page.getByRole('button', { name: 'Close' }).click();
  });

  it('7. every compliance screen opens for the officer without a refusal', async () => {
    const page = officer.page;
    const labels = (await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allTextContents()).map((t) => t.trim());
    expect(labels).toEqual(
      expect.arrayContaining([
        'Monitoring alerts',
        'Cases',
        'Regulatory reports',
        'Float reconciliation',
        'Merchant statements',
        'Integrity checks',
      ]),
    );
    for (const label of [
      'Monitoring alerts',
      'Cases',
      'Regulatory reports',
      'Float reconciliation',
      'Merchant statements',
      'Integrity checks',
    ]) {
      await staff.open(page, new RegExp(`^${label}$`));
      await saysSo(page.locator('main'), /^(?![\s\S]*Loading…)/);
      await counts(page.getByTestId('error-notice'), 0);
    }
  });
});
