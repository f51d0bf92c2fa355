import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM for webhook secrets at rest. A secret must be recoverable to sign (so it cannot be
 * hashed); the row it belongs to is bound as additional authenticated data, so a ciphertext copied
 * onto another integration's row fails to decrypt instead of signing for the wrong partner.
 * Stored layout: iv (12 bytes) | tag (16 bytes) | ciphertext.
 */
export class SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secret encryption key must be 32 bytes');
  }

  encrypt(plaintext: string, boundTo: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
  }

  decrypt(stored: Buffer, boundTo: string): string {
    const iv = stored.subarray(0, IV_BYTES);
    const tag = stored.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(stored.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** A new webhook secret: `whsec_` + 32 random bytes (base64url). Used as the HMAC key as UTF-8 text. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Decodes WEBHOOK_SECRET_ENCRYPTION_KEY. Production and test refuse to run without it (a lost key
 * makes every stored secret unusable); development without it takes `developmentKey()`, the key
 * kept in a local file, so that secrets stored in one run still decrypt after a restart.
 */
export function resolveEncryptionKey(value: string, nodeEnv: string, developmentKey: () => Buffer): Buffer {
  if (value.length === 0) {
    if (nodeEnv !== 'development') throw new Error('WEBHOOK_SECRET_ENCRYPTION_KEY is required (32 bytes, base64)');
    return developmentKey();
  }
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  return key;
}
