import { randomBytes } from 'node:crypto';
import { SecretCipher, generateWebhookSecret, resolveEncryptionKey } from './secret-cipher';

describe('SecretCipher', () => {
  const cipher = new SecretCipher(randomBytes(32));
  const owner = '3f0f6a0e-6a43-4c55-8a2b-0d7f2f2b9c11';

  it('round-trips a secret and never stores it in clear', () => {
    const secret = generateWebhookSecret();
    const stored = cipher.encrypt(secret, owner);
    expect(stored.includes(Buffer.from(secret))).toBe(false);
    expect(cipher.decrypt(stored, owner)).toBe(secret);
  });

  it('uses a fresh IV each time', () => {
    expect(cipher.encrypt('same', owner).equals(cipher.encrypt('same', owner))).toBe(false);
  });

  it('refuses a ciphertext moved to another owner, altered, or read with another key', () => {
    const stored = cipher.encrypt('whsec_x', owner);
    expect(() => cipher.decrypt(stored, 'another-owner')).toThrow();
    const altered = Buffer.from(stored);
    altered[altered.length - 1] ^= 1;
    expect(() => cipher.decrypt(altered, owner)).toThrow();
    expect(() => new SecretCipher(randomBytes(32)).decrypt(stored, owner)).toThrow();
  });

  it('requires a 32-byte key outside development; development without one takes the development key', () => {
    const devKey = randomBytes(32);
    const development = jest.fn(() => devKey);
    expect(() => resolveEncryptionKey('', 'production', development)).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY is required/);
    expect(() => resolveEncryptionKey('', 'test', development)).toThrow(/required/);
    expect(() => resolveEncryptionKey(randomBytes(16).toString('base64'), 'production', development)).toThrow(/32 bytes/);
    expect(development).not.toHaveBeenCalled();
    expect(resolveEncryptionKey('', 'development', development)).toBe(devKey);
    const key = randomBytes(32);
    expect(resolveEncryptionKey(key.toString('base64'), 'development', development).equals(key)).toBe(true);
    expect(resolveEncryptionKey(key.toString('base64'), 'production', development).equals(key)).toBe(true);
    expect(development).toHaveBeenCalledTimes(1);
  });
});
