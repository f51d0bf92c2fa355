import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Locator, type Page, chromium } from 'playwright-core';
import { TOTP_STEP_SEC, base32Decode, totpCode, totpStep } from '../../libs/platform/src/totp';

/**
 * What the console's browser tests share: Debian's Chromium driven by playwright-core (no browser
 * download), one context (its own sessionStorage, so its own signed-in operator) per staff member,
 * screenshots kept as test artefacts, and the staff members' authenticator codes.
 */

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const VIEWPORT = { width: 1366, height: 768 };
const ROOT = join(__dirname, '..', '..');
export const ARTIFACTS = join(__dirname, 'artifacts');
const DOC_IMAGES = join(ROOT, 'docs', 'images');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** One operator's browser window: what the page logged and threw is kept for the failure message. */
export class OperatorWindow {
  readonly problems: string[] = [];
  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async open(browser: Browser, baseUrl: string): Promise<OperatorWindow> {
    const context = await browser.newContext({ viewport: VIEWPORT, baseURL: baseUrl, reducedMotion: 'reduce' });
    // Generous: the platform runs five services on a 2-core machine beside other test files.
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const window = new OperatorWindow(context, page);
    page.on('pageerror', (error) => window.problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') window.problems.push(`console: ${message.text()}`);
    });
    return window;
  }

  close(): Promise<void> {
    return this.context.close();
  }
}

/**
 * Saves the page as `artifacts/<name>.png` (1366×768, the viewport only); with UPDATE_SCREENSHOTS=1
 * also as `docs/images/console-<name>.png`, the pictures of docs/operators.md.
 */
export async function screenshot(page: Page, name: string, forDocs = true): Promise<void> {
  // A picture of a screen still fetching would show "Loading…" where its figures go (the docs use
  // these pictures): every list, card and detail page says that while it waits.
  await counts(page.getByText('Loading…'), 0);
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  // the caret and animations would make two runs differ for nothing
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
  if (forDocs && process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOC_IMAGES, { recursive: true });
    copyFileSync(file, join(DOC_IMAGES, `console-${name}.png`));
  }
}

/** Near the end of a step its predecessor leaves auth's window (one step before or after now). */
const EDGE_MS = 3_000;

/**
 * The staff members' authenticator apps. Auth takes each time step of a user at most once and only
 * after the last one it accepted, within one step of now: every code of a phone (typed in the
 * browser or sent by the test's API sign-ins) comes from here, so no step is offered twice.
 */
export class Authenticators {
  private readonly secrets = new Map<string, Buffer>();
  private readonly lastStep = new Map<string, number>();

  enrol(phone: string, base32: string): void {
    const secret = base32Decode(base32);
    if (!secret) throw new Error(`not a base32 secret for ${phone}: ${base32}`);
    this.secrets.set(phone, secret);
    this.lastStep.delete(phone);
  }

  knows(phone: string): boolean {
    return this.secrets.has(phone);
  }

  /** The code an authenticator shows, from the earliest step not used yet (waiting for the next step when the window is spent). */
  async code(phone: string): Promise<string> {
    const secret = this.secrets.get(phone);
    if (!secret) throw new Error(`no authenticator enrolled for ${phone}`);
    const last = this.lastStep.get(phone) ?? -1;
    for (;;) {
      const now = Date.now();
      const current = totpStep(now);
      const intoStep = now - current * TOTP_STEP_SEC * 1000;
      const earliest = intoStep < TOTP_STEP_SEC * 1000 - EDGE_MS ? current - 1 : current;
      const step = Math.max(earliest, last + 1);
      if (step <= current + 1) {
        this.lastStep.set(phone, step);
        return totpCode(secret, step);
      }
      await new Promise((resolve) => setTimeout(resolve, (step - 1) * TOTP_STEP_SEC * 1000 - now + 50));
    }
  }
}

/*
 * Assertions that wait for the page (playwright-core has no `expect`): each polls until the screen
 * says what is expected, and fails with what it said last.
 */
const WAIT_MS = 20_000;

async function poll<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let failure: unknown;
  for (;;) {
    try {
      last = await read();
      failure = undefined;
      if (ok(last)) return last;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not so after ${timeoutMs} ms; last seen: ${failure ? String(failure) : JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The first element the locator finds becomes visible. */
export async function shows(locator: Locator, timeoutMs = WAIT_MS): Promise<void> {
  await locator.first().waitFor({ state: 'visible', timeout: timeoutMs });
}

/** The element's text (its DOM text, not as CSS transforms it; white space squashed) contains `expected`, or matches it. */
export async function saysSo(locator: Locator, expected: string | RegExp, timeoutMs = WAIT_MS): Promise<string> {
  const matches = (text: string) => (typeof expected === 'string' ? text.includes(expected) : expected.test(text));
  return poll(
    `${locator} says ${String(expected)}`,
    async () => squash((await locator.first().textContent({ timeout: 1_000 })) ?? ''),
    matches,
    timeoutMs,
  );
}

/** The element's text (white space squashed) is exactly `expected`. */
export async function saysExactly(locator: Locator, expected: string, timeoutMs = WAIT_MS): Promise<void> {
  await poll(
    `${locator} is "${expected}"`,
    async () => squash((await locator.first().textContent({ timeout: 1_000 })) ?? ''),
    (t) => t === expected,
    timeoutMs,
  );
}

/** The locator finds exactly `count` elements. */
export async function counts(locator: Locator, count: number, timeoutMs = WAIT_MS): Promise<void> {
  await poll(
    `${locator} finds ${count}`,
    () => locator.count(),
    (n) => n === count,
    timeoutMs,
  );
}

/**
 * Saves the page as `artifacts/<name>.png`; with UPDATE_SCREENSHOTS=1 also as `docs/images/<docName>.png`
 * (for pictures of a guide other than docs/operators.md, e.g. docs/compliance.md's `compliance-*`).
 */
export async function screenshotFor(page: Page, name: string, docName: string): Promise<void> {
  await screenshot(page, name, false);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOC_IMAGES, { recursive: true });
    copyFileSync(join(ARTIFACTS, `${name}.png`), join(DOC_IMAGES, `${docName}.png`));
  }
}

interface ApiAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers field by field
  body: any;
}

/**
 * What a console scenario does as a staff member, through /api (set-up the test does not watch) or
 * in the browser: sign in with PIN and authenticator code (enrolling at the first sign-in, the SMS
 * code read from auth's development outbox), open a screen from the navigation, pick in a select.
 */
export class StaffDriver {
  readonly authenticators = new Authenticators();
  private readonly tokens = new Map<string, { token: string; at: number }>();

  constructor(
    private readonly call: (method: string, path: string, options?: { token?: string; body?: unknown }) => Promise<ApiAnswer>,
    /** the TOTP secret auth gives the bootstrap administrator in tests (BOOTSTRAP_ADMIN_TOTP_SECRET) */
    private readonly bootstrapSecret: string,
    /** the enrolment code in auth's development outbox answer (test/support/staff-sign-in's enrolmentCodeIn) */
    private readonly enrolmentCodeIn: (outbox: never) => string | null | undefined,
  ) {}

  private async enrolmentSms(phone: string): Promise<string> {
    const outbox = await this.call('GET', `/api/auth/dev/sms?phone=${encodeURIComponent(phone)}`);
    const code = this.enrolmentCodeIn(outbox.body as never);
    if (!code) throw new Error(`no enrolment SMS for ${phone}: ${outbox.status} ${JSON.stringify(outbox.body)}`);
    return code;
  }

  /** A staff token through /api, kept 4 minutes (a staff token lives 5). */
  async token(phone: string, pin: string): Promise<string> {
    const kept = this.tokens.get(phone);
    if (kept && Date.now() - kept.at < 240_000) return kept.token;
    const first = await this.call('POST', '/api/auth/login', { body: { phone, pin } });
    if (first.status !== 200) throw new Error(`login ${phone}: ${first.status} ${JSON.stringify(first.body)}`);
    let token: string = first.body.token;
    if (typeof token !== 'string') {
      const enrolling = first.body.secondFactor === 'TOTP_ENROLMENT_REQUIRED';
      if (enrolling) this.authenticators.enrol(phone, first.body.secret);
      else if (!this.authenticators.knows(phone)) this.authenticators.enrol(phone, this.bootstrapSecret);
      const second = await this.call('POST', '/api/auth/login/second-factor', {
        body: {
          challengeToken: first.body.challengeToken,
          code: await this.authenticators.code(phone),
          ...(enrolling ? { smsCode: await this.enrolmentSms(phone) } : {}),
        },
      });
      if (second.status !== 200) throw new Error(`second factor ${phone}: ${second.status} ${JSON.stringify(second.body)}`);
      token = second.body.token;
    }
    this.tokens.set(phone, { token, at: Date.now() });
    return token;
  }

  /** Signs in in the browser; the phone's authenticator must be enrolled already (a first `token()` does it). */
  async signIn(page: Page, phone: string, pin: string): Promise<void> {
    await page.goto('/console');
    await page.getByLabel('Phone number').fill(phone);
    await page.getByLabel(/^PIN/).fill(pin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel(/^Authenticator code/);
    await code.fill(await this.authenticators.code(phone));
    await code.press('Enter');
    await shows(page.getByTestId('signed-in-as'));
  }

  /** Opens a screen from the navigation (only the screens the role reaches are listed). */
  async open(page: Page, label: RegExp): Promise<void> {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: label }).first().click();
    await shows(page.getByRole('heading', { level: 1, name: label }));
  }

  /** A Mantine select: opens it, picks the option. */
  async choose(scope: Page | Locator, label: RegExp, option: string | RegExp): Promise<void> {
    await scope.getByLabel(label).first().click();
    const page = 'page' in scope ? scope.page() : scope;
    await page.getByRole('option', { name: option }).click();
  }
}
