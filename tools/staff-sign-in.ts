/**
 * Signing staff in from code (the demo, the test harnesses, the benchmarks): phone + PIN, then the
 * second factor auth asks staff for (docs/auth-limits.md "Staff sign-in"), computed here as an
 * authenticator app would. The first sign-in of a staff member enrols: the secret auth answers is
 * remembered per phone for the next ones, and the code auth sends by SMS to the staff phone with
 * the enrolment challenge is read through the caller's SMS reader (`readSmsCodesWith`; the
 * development outbox: `devOutboxReader`). Auth accepts each time step of a user at most once, and
 * only later than the last one it accepted, within one step before or after now: so a code is
 * taken from the earliest step still unused, and when the three steps of the window are spent the
 * sign-in waits for the next step (at most 30 s).
 */
import { createHmac } from 'node:crypto';
import { TOTP_STEP_SEC, base32Decode, base32Encode, totpCode, totpStep } from '../libs/platform/src/totp';

/** One HTTP answer, as each caller's own client returns it. */
export interface SignInAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers are read field by field
  body: any;
}

/** POSTs a JSON body to a path of auth's public routes (`/api/auth/...` through the gateway, `/auth/...` directly). */
export type PostJson<A extends SignInAnswer = SignInAnswer> = (path: string, body: Record<string, unknown>) => Promise<A>;

/** GETs a path of auth's public routes, as `PostJson` posts. */
export type GetJson<A extends SignInAnswer = SignInAnswer> = (path: string) => Promise<A>;

/** The code auth sent by SMS to a phone with its enrolment challenge; undefined when none is there. */
export type SmsCodeReader = (phone: string) => Promise<string | undefined>;

/**
 * An SMS reader over auth's development outbox (`GET <prefix>/dev/sms?phone=…`, SMS_DRIVER=dev, never
 * in production): the code of the newest enrolment message of the phone.
 */
export function devOutboxReader(get: GetJson, prefix = '/api/auth'): SmsCodeReader {
  return async (phone) => {
    const answer = await get(`${prefix}/dev/sms?phone=${encodeURIComponent(phone)}`);
    return enrolmentCodeIn(answer.body);
  };
}

/** The enrolment code in an outbox answer (messages newest first), undefined when it holds none. */
export function enrolmentCodeIn(outbox: { messages?: Array<{ text: string }> } | undefined): string | undefined {
  const message = outbox?.messages?.find((m) => m.text.includes('staff sign-in'));
  return message && /\b(\d{6})\b/.exec(message.text)?.[1];
}

/** How long before the end of a step its predecessor is no longer used (it leaves the window then). */
const EDGE_MS = 3_000;

/**
 * The bootstrap administrator's TOTP secret of a run whose keys derive from `seed`
 * (MM_SERVICE_KEY_SEED): `npm start` gives it to auth as BOOTSTRAP_ADMIN_TOTP_SECRET, the demo
 * computes the administrator's codes with it. Base32, 160 bits.
 */
export function bootstrapAdminTotpSecret(seed: string): string {
  return base32Encode(createHmac('sha256', seed).update('bootstrap-admin-totp').digest().subarray(0, 20));
}

/** `A`: the answer type of the caller's own client, handed back as it is. */
export class StaffSignIn<A extends SignInAnswer = SignInAnswer> {
  private readonly secrets = new Map<string, Buffer>();
  private readonly lastStep = new Map<string, number>();
  private readSmsCode?: SmsCodeReader;

  /** `prefix`: where auth's routes are, `/api/auth` through the gateway or `/auth` on auth itself. */
  constructor(
    private readonly post: PostJson<A>,
    private readonly prefix = '/api/auth',
  ) {}

  /** A secret known beforehand (the bootstrap administrator's), base32. */
  knowSecret(phone: string, base32: string): this {
    const secret = base32Decode(base32);
    if (!secret) throw new Error(`not a base32 TOTP secret for ${phone}`);
    this.secrets.set(phone, secret);
    return this;
  }

  /** How to read the SMS code of an enrolment (without one, an enrolment throws). */
  readSmsCodesWith(reader: SmsCodeReader): this {
    this.readSmsCode = reader;
    return this;
  }

  /** The TOTP secret of a phone, once known (enrolled through this object or given). */
  secretOf(phone: string): Buffer | undefined {
    return this.secrets.get(phone);
  }

  /** The same, in base32 (what an authenticator app takes). */
  secretOfBase32(phone: string): string | undefined {
    const secret = this.secrets.get(phone);
    return secret && base32Encode(secret);
  }

  /**
   * The whole sign-in: the login's answer when it is not a second-factor challenge (a customer's
   * tokens, or any refusal), else the second step's answer.
   */
  async login(phone: string, pin: string): Promise<A> {
    const first = await this.post(`${this.prefix}/login`, { phone, pin });
    if (first.status !== 200 || typeof first.body?.secondFactor !== 'string') return first;
    return this.secondStep(phone, first.body);
  }

  /**
   * Answers a challenge the login gave: for an enrolment, with its secret and the code sent by SMS
   * (read with the SMS reader).
   */
  async secondStep(phone: string, challenge: { secondFactor: string; challengeToken: string; secret?: string }): Promise<A> {
    let smsCode: string | undefined;
    if (challenge.secondFactor === 'TOTP_ENROLMENT_REQUIRED') {
      if (!challenge.secret) throw new Error(`enrolment challenge without a secret for ${phone}`);
      if (!this.readSmsCode) throw new Error(`${phone} enrols a second factor: StaffSignIn needs an SMS reader (readSmsCodesWith)`);
      smsCode = await this.readSmsCode(phone);
      if (!smsCode) throw new Error(`no enrolment code sent by SMS to ${phone}`);
      this.knowSecret(phone, challenge.secret);
      this.lastStep.delete(phone);
    }
    const secret = this.secrets.get(phone);
    if (!secret) throw new Error(`no TOTP secret known for ${phone}: sign it in once through this object, or call knowSecret`);
    // A step used by another client of the same account (another process, an earlier run) is refused
    // as used, and the challenge stays open: the next step is tried, twice at most.
    for (let attempt = 0; ; attempt++) {
      const step = await this.nextStep(phone);
      const answer = await this.post(`${this.prefix}/login/second-factor`, {
        challengeToken: challenge.challengeToken,
        code: totpCode(secret, step),
        ...(smsCode === undefined ? {} : { smsCode }),
      });
      if (answer.body?.code !== 'SECOND_FACTOR_CODE_USED' || attempt === 2) return answer;
    }
  }

  /** The earliest step of the window later than the last one taken, waiting for the next step when none is left. */
  private async nextStep(phone: string): Promise<number> {
    const last = this.lastStep.get(phone) ?? -1;
    for (;;) {
      const now = Date.now();
      const current = totpStep(now);
      const intoStep = now - current * TOTP_STEP_SEC * 1000;
      const earliest = intoStep < TOTP_STEP_SEC * 1000 - EDGE_MS ? current - 1 : current;
      const step = Math.max(earliest, last + 1);
      if (step <= current + 1) {
        // Taken at once, so that concurrent sign-ins of one phone use different steps.
        this.lastStep.set(phone, step);
        return step;
      }
      // Every step of the window is spent: the step after `last` enters the window when `last` becomes the current one.
      await new Promise((resolve) => setTimeout(resolve, (step - 1) * TOTP_STEP_SEC * 1000 - now + 50));
    }
  }
}
