import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateDevKey } from './dev-key-file';

describe('loadOrCreateDevKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mm-dev-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a 32-byte key readable by its owner only, in a private folder, and finds the same key next time', () => {
    const file = join(dir, 'nested', 'secret-encryption.key');
    const first = loadOrCreateDevKey(file);
    expect(first).toMatchObject({ path: file, created: true, looselyProtected: false });
    expect(first.key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o077).toBe(0);

    const second = loadOrCreateDevKey(file);
    expect(second.created).toBe(false);
    expect(second.key.equals(first.key)).toBe(true);
  });

  it('refuses a file that does not hold a 32-byte key and leaves it as it was', () => {
    const file = join(dir, 'secret-encryption.key');
    writeFileSync(file, 'not a key\n', { mode: 0o600 });
    expect(() => loadOrCreateDevKey(file)).toThrow(/does not hold a 32-byte base64 key/);
    expect(readFileSync(file, 'utf8')).toBe('not a key\n');
  });

  it('says when the key file is readable by others', () => {
    const file = join(dir, 'secret-encryption.key');
    writeFileSync(file, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o644 });
    expect(loadOrCreateDevKey(file)).toMatchObject({ created: false, looselyProtected: true, key: Buffer.alloc(32, 7) });
  });
});
