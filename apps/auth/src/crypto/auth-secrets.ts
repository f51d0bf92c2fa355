import { type KeyObject, createPrivateKey, createPublicKey, createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { AuthConfig } from '../auth.config';

/** Development-only pepper: production refuses to boot without PIN_PEPPER (assertProductionSecrets). */
const DEVELOPMENT_PEPPER = 'development-only-pepper-never-use-in-production';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** The secrets of the service, resolved once at boot. */
export class AuthSecrets {
  constructor(
    readonly pepper: Buffer,
    readonly otpKey: Buffer,
    readonly signing: SigningKey,
  ) {}

  static fromConfig(config: AuthConfig): AuthSecrets {
    const logger = new Logger(AuthSecrets.name);
    if (!config.PIN_PEPPER) logger.warn('PIN_PEPPER is not set: using the development pepper (refused in production)');
    if (!config.OTP_HMAC_KEY) logger.warn('OTP_HMAC_KEY is not set: using a key generated for this process only');
    const pepper = Buffer.from(config.PIN_PEPPER ?? DEVELOPMENT_PEPPER, 'utf8');
    const otpKey = config.OTP_HMAC_KEY ? Buffer.from(config.OTP_HMAC_KEY, 'utf8') : randomBytes(32);
    return new AuthSecrets(pepper, otpKey, AuthSecrets.signingKey(config, logger));
  }

  private static signingKey(config: AuthConfig, logger: Logger): SigningKey {
    let privateKey: KeyObject;
    if (config.JWT_PRIVATE_KEY) {
      privateKey = createPrivateKey(config.JWT_PRIVATE_KEY.replace(/\\n/g, '\n'));
      if (privateKey.asymmetricKeyType !== 'ed25519')
        throw new Error('Invalid configuration: JWT_PRIVATE_KEY must be an Ed25519 private key (PKCS#8 PEM)');
    } else {
      // Tokens signed with this key die with the process: fine for development and tests only.
      logger.warn('JWT_PRIVATE_KEY is not set: generated an ephemeral Ed25519 signing key (refused in production)');
      privateKey = generateKeyPairSync('ed25519').privateKey;
    }
    const publicKey = createPublicKey(privateKey);
    // Stable default kid: a digest of the public key, so every instance sharing the key agrees.
    const kid =
      config.JWT_KEY_ID ??
      createHash('sha256')
        .update(publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64url')
        .slice(0, 16);
    return { kid, privateKey, publicKey };
  }
}
