import { AuthConfig } from '../auth.config';
import { AuthSecrets } from './auth-secrets';
import { PinHasher } from './pin-hasher.service';

function hasher(overrides: Partial<AuthConfig> = {}, pepper = 'p'.repeat(32)): PinHasher {
  const config = Object.assign(new AuthConfig(), { PIN_SCRYPT_LOG_N: 10, ...overrides });
  const secrets = new AuthSecrets(Buffer.from(pepper), Buffer.alloc(32), undefined as never);
  return new PinHasher(config, secrets);
}

describe('PinHasher', () => {
  it('verifies the right PIN only, with a fresh salt per hash', async () => {
    const h = hasher();
    const [a, b] = [await h.hash('2580'), await h.hash('2580')];
    expect(a).toMatch(/^scrypt\$10\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(await h.verify('2580', a)).toBe(true);
    expect(await h.verify('2581', a)).toBe(false);
    expect(await h.verify('2580', 'garbage')).toBe(false);
  });

  it('depends on the pepper: a hash is useless without it', async () => {
    const stored = await hasher().hash('2580');
    expect(await hasher({}, 'q'.repeat(32)).verify('2580', stored)).toBe(false);
  });

  it('verifies hashes made with older parameters and asks for an upgrade', async () => {
    const old = await hasher({ PIN_SCRYPT_LOG_N: 11 }).hash('2580');
    const current = hasher();
    expect(await current.verify('2580', old)).toBe(true);
    expect(current.needsRehash(old)).toBe(true);
    expect(current.needsRehash(await current.hash('2580'))).toBe(false);
  });

  it('states its memory cost: 128 * N * r bytes (2 MiB with the defaults)', () => {
    const defaults = new AuthConfig();
    expect(hasher({ PIN_SCRYPT_LOG_N: defaults.PIN_SCRYPT_LOG_N, PIN_SCRYPT_R: defaults.PIN_SCRYPT_R }).memoryBytes).toBe(2 * 1024 * 1024);
  });
});
