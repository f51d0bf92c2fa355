import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuthConfig } from '../auth.config';

/** Development-only key: production refuses to boot without TOTP_ENCRYPTION_KEY (assertProductionSecrets). */
const DEVELOPMENT_KEY = 'development-only-totp-key-never-use-in-production';
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** RFC 4226 asks for at least 128 bits of secret; we make 160 (what SHA-1 takes in one block). */
export const TOTP_SECRET_BYTES = 20;

/**
 * Keeps TOTP secrets encrypted at rest: AES-256-GCM under the SHA-256 of TOTP_ENCRYPTION_KEY, a
 * random IV per secret, the user id as associated data (a ciphertext copied onto another user's
 * row does not open). Stored as version ‖ IV ‖ tag ‖ ciphertext. Like the PIN pepper, the key has a
 * fixed development value (secrets must survive restarts), refused in production.
 */
@Injectable()
export class TotpSecretBox {
  private readonly key: Buffer;

  constructor(@Inject(AuthConfig) config: AuthConfig) {
    if (!config.TOTP_ENCRYPTION_KEY)
      new Logger(TotpSecretBox.name).warn('TOTP_ENCRYPTION_KEY is not set: using the development key (refused in production)');
    this.key = createHash('sha256')
      .update(config.TOTP_ENCRYPTION_KEY ?? DEVELOPMENT_KEY, 'utf8')
      .digest();
  }

  newSecret(): Buffer {
    return randomBytes(TOTP_SECRET_BYTES);
  }

  seal(userId: string, secret: Buffer): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(userId, 'utf8'));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** The secret, or undefined when the box does not open (another key, another user, damaged). */
  open(userId: string, sealed: Buffer): Buffer | undefined {
    if (sealed.length <= 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 1 + IV_BYTES)).setAAD(Buffer.from(userId, 'utf8'));
      decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      return undefined;
    }
  }
}
