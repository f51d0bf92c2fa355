#!/usr/bin/env node
// Prints a TOTP code (RFC 6238: HMAC-SHA1, 30 s, 6 digits) for a staff sign-in's second step, as an
// authenticator app would (docs/auth-limits.md "Staff sign-in"). Runs without a build:
//   node tools/totp.mjs [base32-secret]
// The secret: the argument, else BOOTSTRAP_ADMIN_TOTP_SECRET, else the bootstrap administrator's
// secret npm start derives from MM_SERVICE_KEY_SEED. Auth accepts each time step of a user once, and
// only later than the last, so successive runs hand out successive steps (remembered per secret in
// the temporary directory), waiting for the next step when the window of now ± 1 step is spent.
//
// Why a second copy of RFC 6238 here: the docs' curl steps run this before anything is built, and
// Node cannot import the TypeScript implementation (libs/platform/src/totp.ts, which auth, the
// tools and the harnesses share) without a build. So this file stays plain JavaScript with its own
// few lines of HOTP and base32, and tools/totp.spec.ts checks its codes against that implementation.
import { createHash, createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STEP_MS = 30_000;
const EDGE_MS = 3_000;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Must equal bootstrapAdminTotpSecret() in tools/staff-sign-in.ts (a unit test checks it). */
export function adminSecretFromSeed(seed) {
  return base32Encode(createHmac('sha256', seed).update('bootstrap-admin-totp').digest().subarray(0, 20));
}

function base32Encode(bytes) {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function base32Decode(text) {
  const clean = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  if (!/^[A-Z2-7]+$/.test(clean)) throw new Error('the secret is not base32 (A-Z, 2-7)');
  const out = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function totpCode(secret, step) {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function main() {
  const given = process.argv[2] || process.env.BOOTSTRAP_ADMIN_TOTP_SECRET;
  const seed = process.env.MM_SERVICE_KEY_SEED || process.env.INTERNAL_SERVICE_KEY;
  const base32 = given || (seed ? adminSecretFromSeed(seed) : undefined);
  if (!base32) {
    process.stderr.write('usage: node tools/totp.mjs <base32-secret>  (or set BOOTSTRAP_ADMIN_TOTP_SECRET or MM_SERVICE_KEY_SEED)\n');
    process.exit(2);
  }
  const secret = base32Decode(base32);
  const dir = join(tmpdir(), 'mm-totp');
  mkdirSync(dir, { recursive: true });
  const state = join(dir, createHash('sha256').update(secret).digest('hex').slice(0, 16));
  let last = -1;
  try {
    last = Number(readFileSync(state, 'utf8')) || -1;
  } catch {
    // first code handed out for this secret here
  }
  for (;;) {
    const now = Date.now();
    const current = Math.floor(now / STEP_MS);
    // One step later than StaffSignIn would take at the same moment (the current one, the next near
    // its end): a script run after `npm run demo` never picks a step the demo has just used.
    const earliest = now - current * STEP_MS < STEP_MS - EDGE_MS ? current : current + 1;
    const step = Math.max(earliest, last + 1);
    if (step <= current + 1) {
      writeFileSync(state, String(step));
      process.stdout.write(`${totpCode(secret, step)}\n`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, (step - 1) * STEP_MS - now + 50));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
