import { createHmac } from 'node:crypto';
import type { Answer } from './platform-harness';

/** RFC 6238 code of a base32 secret at a 30 s step. */
function totp(secret: string, step: number): string {
  let bits = '';
  for (const c of secret.replace(/=+$/, '').toUpperCase())
    bits += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

type Call = (method: string, path: string, options: { body?: unknown; token?: string }) => Promise<Answer>;

/**
 * Signs anyone in through the gateway; staff answer their second factor (enrolled at the first
 * sign-in, its secret kept per phone; each TOTP step used once).
 */
export function staffSignIn(call: Call): (phone: string, pin: string) => Promise<string> {
  const secrets = new Map<string, string>();
  const usedSteps = new Map<string, Set<number>>();
  return async (phone, pin) => {
    const res = await call('POST', '/api/auth/login', { body: { phone, pin } });
    if (res.status !== 200) throw new Error(`login ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.token) return res.body.token as string;
    if (res.body.secret) secrets.set(phone, res.body.secret);
    const used = usedSteps.get(phone) ?? new Set<number>();
    usedSteps.set(phone, used);
    const now = Math.floor(Date.now() / 30_000);
    const step = [now, now + 1, now - 1].find((s) => !used.has(s));
    if (step === undefined) throw new Error('no unused TOTP step left');
    used.add(step);
    const done = await call('POST', '/api/auth/login/second-factor', {
      body: { challengeToken: res.body.challengeToken, code: totp(secrets.get(phone)!, step) },
    });
    if (done.status !== 200) throw new Error(`second factor ${done.status} ${JSON.stringify(done.body)}`);
    return done.body.token as string;
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
