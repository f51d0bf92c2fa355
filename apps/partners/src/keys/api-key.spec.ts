import fc from 'fast-check';
import { API_KEY_PREFIXES, generateApiKey, hashApiKey, keyHint, parseApiKey } from './api-key';

describe('API keys', () => {
  it('have the mode prefix, 49 base62 characters and parse back to their mode and hash', () => {
    for (const mode of ['live', 'test'] as const) {
      const { key, hash, last4 } = generateApiKey(mode);
      expect(key).toMatch(new RegExp(`^${API_KEY_PREFIXES[mode]}[0-9A-Za-z]{49}$`));
      expect(parseApiKey(key)).toEqual({ mode, hash });
      expect(hash.equals(hashApiKey(key))).toBe(true);
      expect(last4).toBe(key.slice(-4));
      expect(keyHint(mode, last4)).toBe(`${API_KEY_PREFIXES[mode]}…${last4}`);
    }
  });

  it('are distinct (256 random bits)', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('live').key));
    expect(keys.size).toBe(2000);
  });

  it('refuse any single-character typo, a truncation, an extension and the other mode prefix', () => {
    const { key } = generateApiKey('live');
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 12, max: key.length - 1 }), fc.constantFrom(...alphabet), (i, c) => {
        fc.pre(key[i] !== c);
        return parseApiKey(key.slice(0, i) + c + key.slice(i + 1)) === null;
      }),
      { numRuns: 500 },
    );
    expect(parseApiKey(key.slice(0, -1))).toBeNull();
    expect(parseApiKey(`${key}0`)).toBeNull();
    expect(parseApiKey(key.replace('svc_sk_live_', 'svc_sk_test_'))).toBeNull();
    expect(parseApiKey('')).toBeNull();
    expect(parseApiKey(`Bearer ${key}`)).toBeNull();
  });
});
