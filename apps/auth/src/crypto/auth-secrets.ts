import { type KeyObject, createPrivateKey, createPublicKey, createHash, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { AuthConfig } from '../auth.config';

/** Development-only pepper: production refuses to boot without PIN_PEPPER (assertProductionSecrets). */
const DEVELOPMENT_PEPPER = 'development-only-pepper-never-use-in-production';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A key tokens are verified with and the JWKS publishes: the signing key, the next one, the previous one. */
export interface VerificationKey {
  kid: string;
  publicKey: KeyObject;
  slot: 'current' | 'next' | 'previous';
}

/** The secrets of the service, resolved once at boot. */
export class AuthSecrets {
  private published?: readonly VerificationKey[];

  constructor(
    readonly pepper: Buffer,
    readonly otpKey: Buffer,
    readonly signing: SigningKey,
    private readonly others: readonly VerificationKey[] = [],
  ) {}

  /**
   * Every published key, the signing key first (kids are unique: checked in fromConfig). Built on
   * first use and kept: every access-token check looks its key up here.
   */
  get verificationKeys(): readonly VerificationKey[] {
    this.published ??= [{ kid: this.signing.kid, publicKey: this.signing.publicKey, slot: 'current' }, ...this.others];
    return this.published;
  }

  /**
   * How a phone is named in a Redis key (throttles, rate limits): a keyed digest under `label`, so
   * that Redis never holds a phone number in clear and each use has its own keys.
   */
  phoneTag(label: string, phone: string): string {
    return createHmac('sha256', this.otpKey).update(`${label}:${phone}`).digest('base64url').slice(0, 22);
  }

  static fromConfig(config: AuthConfig): AuthSecrets {
    const logger = new Logger(AuthSecrets.name);
    if (!config.PIN_PEPPER) logger.warn('PIN_PEPPER is not set: using the development pepper (refused in production)');
    if (!config.OTP_HMAC_KEY) logger.warn('OTP_HMAC_KEY is not set: using a key generated for this process only');
    const pepper = Buffer.from(config.PIN_PEPPER ?? DEVELOPMENT_PEPPER, 'utf8');
    const otpKey = config.OTP_HMAC_KEY ? Buffer.from(config.OTP_HMAC_KEY, 'utf8') : randomBytes(32);
    const others: VerificationKey[] = [];
    for (const [slot, pem, kid] of [
      ['next', config.JWT_NEXT_PUBLIC_KEY, config.JWT_NEXT_KEY_ID],
      ['previous', config.JWT_PREVIOUS_PUBLIC_KEY, config.JWT_PREVIOUS_KEY_ID],
    ] as const) {
      if (pem) others.push(AuthSecrets.publishedKey(slot, pem, kid));
    }
    const secrets = new AuthSecrets(pepper, otpKey, AuthSecrets.signingKey(config, logger), others);
    const kids = secrets.verificationKeys.map((k) => k.kid);
    const duplicate = kids.find((kid, i) => kids.indexOf(kid) !== i);
    if (duplicate !== undefined)
      throw new Error(`Invalid configuration: two signing keys share the kid ${duplicate} (is the next or previous key the current one?)`);
    for (const key of others) logger.log({ msg: 'publishing an extra verification key', slot: key.slot, kid: key.kid });
    return secrets;
  }

  /** A next or previous key: only its public half is kept, whichever half was configured. */
  static publishedKey(slot: 'next' | 'previous', pem: string, kid: string | undefined): VerificationKey {
    const variable = slot === 'next' ? 'JWT_NEXT_PUBLIC_KEY' : 'JWT_PREVIOUS_PUBLIC_KEY';
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(pem.replace(/\\n/g, '\n'));
    } catch {
      throw new Error(`Invalid configuration: ${variable} is not a PEM key`);
    }
    if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error(`Invalid configuration: ${variable} must be an Ed25519 key`);
    return { kid: kid || defaultKid(publicKey), publicKey, slot };
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
    return { kid: config.JWT_KEY_ID || defaultKid(publicKey), privateKey, publicKey };
  }
}

/**
 * Stable default kid: a digest of the public key, so every instance sharing the key agrees, and a
 * key keeps its kid when it moves from next to current to previous during a rotation.
 */
export function defaultKid(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url')
    .slice(0, 16);
}

/**
 * What is wrong with the configured next or previous key, if anything (checked when the
 * configuration is read, before any connection is opened): not an Ed25519 PEM key, or the kid of
 * another configured key, which would make tokens ambiguous (usually the key that signs, pasted twice).
 */
export function publishedKeyProblem(config: AuthConfig, slot: 'next' | 'previous'): string | undefined {
  const pem = slot === 'next' ? config.JWT_NEXT_PUBLIC_KEY : config.JWT_PREVIOUS_PUBLIC_KEY;
  if (!pem) return undefined;
  let key: VerificationKey;
  try {
    key = AuthSecrets.publishedKey(slot, pem, slot === 'next' ? config.JWT_NEXT_KEY_ID : config.JWT_PREVIOUS_KEY_ID);
  } catch (error) {
    return (error as Error).message.replace(/^Invalid configuration: \S+ /, '');
  }
  let signingKid = config.JWT_KEY_ID || undefined;
  if (!signingKid && config.JWT_PRIVATE_KEY) {
    try {
      signingKid = defaultKid(createPublicKey(createPrivateKey(config.JWT_PRIVATE_KEY.replace(/\\n/g, '\n'))));
    } catch {
      // A bad signing key is reported on its own when the secrets are resolved.
    }
  }
  if (key.kid === signingKid) return `has the kid ${key.kid} of the signing key (JWT_PRIVATE_KEY): two keys must not share a kid`;
  if (slot === 'previous' && config.JWT_NEXT_PUBLIC_KEY) {
    let nextKid: string | undefined;
    try {
      nextKid = AuthSecrets.publishedKey('next', config.JWT_NEXT_PUBLIC_KEY, config.JWT_NEXT_KEY_ID).kid;
    } catch {
      // Reported on JWT_NEXT_PUBLIC_KEY itself.
    }
    if (nextKid === key.kid) return `has the kid ${key.kid} of JWT_NEXT_PUBLIC_KEY: two keys must not share a kid`;
  }
  return undefined;
}
