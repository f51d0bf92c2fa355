import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { base32Decode, base32Encode, matchTotp, totpStep } from '../libs/platform/src/totp';
import { bootstrapAdminTotpSecret } from './staff-sign-in';

const TOOL = join(__dirname, 'totp.mjs');
const run = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [TOOL, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } }).trim();

describe('node tools/totp.mjs', () => {
  it('prints codes auth accepts, each of a later step than the one before', () => {
    // a new secret: no step handed out before for it (the tool remembers steps per secret)
    const secret = base32Encode(randomBytes(20));
    const steps = [run([secret]), run([secret])].map((code) => matchTotp(base32Decode(secret)!, code));
    expect(steps[0]).toBeDefined();
    expect(steps[1]).toBeGreaterThan(steps[0]!);
    expect(Math.abs(steps[1]! - totpStep())).toBeLessThanOrEqual(1);
  });

  it("derives the bootstrap administrator's secret from the key seed as npm start does", () => {
    const seed = randomBytes(32).toString('hex');
    const code = run([], { MM_SERVICE_KEY_SEED: seed });
    expect(matchTotp(base32Decode(bootstrapAdminTotpSecret(seed))!, code)).toBeDefined();
  });

  it('refuses to run without a secret', () => {
    expect(() => execFileSync(process.execPath, [TOOL], { stdio: 'pipe', env: { PATH: process.env.PATH ?? '' } })).toThrow();
  });
});
