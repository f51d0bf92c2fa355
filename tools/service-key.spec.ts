import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { identifyCaller, parseTrustedCallers, serviceKeyDigest } from '@mm/platform';

const TOOL = join(__dirname, 'service-key.mjs');
const run = (args: string[], input?: string) => execFileSync(process.execPath, [TOOL, ...args], { input, encoding: 'utf8' });

describe('node tools/service-key.mjs', () => {
  it('prints a new key and the digest the services recognise it by', () => {
    const out = run(['ledger-wallets']);
    const key = /^LEDGER_WALLETS_SERVICE_KEY=([0-9a-f]{64})$/m.exec(out)?.[1];
    const digest = /^LEDGER_WALLETS_SERVICE_KEY_SHA256=([0-9a-f]{64})$/m.exec(out)?.[1];
    expect(key).toBeDefined();
    expect(digest).toBe(serviceKeyDigest(key!));
    expect(identifyCaller(parseTrustedCallers(`ledger-wallets:${digest}`), key!)).toBe('ledger-wallets');
    expect(run(['ledger-wallets'])).not.toContain(key);
  });

  it('prints the digest of a key read from stdin', () => {
    const key = 'k'.repeat(40);
    expect(run(['--digest'], `${key}\n`).trim()).toBe(serviceKeyDigest(key));
  });

  it('refuses an unknown caller', () => {
    expect(() => execFileSync(process.execPath, [TOOL, 'payments'], { stdio: 'pipe' })).toThrow();
  });
});
