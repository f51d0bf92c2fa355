import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { CONSENT_PROOF_AUDIENCE, CONSENT_PROOF_TYP, CONSENT_STEPS, type ConsentStep } from '@mm/contracts';
import { type JwksVerifier, createJwksVerifier } from '@mm/platform';
import { LedgerWalletsConfig, consentJwksUrl } from '../ledger-wallets.config';

/** A consent proof whose signature, type, issuer, audience and lifetime are checked. */
export interface VerifiedConsent {
  userId: string;
  intentId: string;
  step: ConsentStep;
  jti: string;
  expiresAt: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Verifies the consent proofs auth signs (contract: `@mm/contracts` consent.ts) against auth's
 * JWKS. The key set is fetched once and cached (refetched when a proof names an unknown key id),
 * so a verification is a local Ed25519 check with no call to auth. What the proof is bound to
 * (intent, step, user) is checked by the transition, which has the intent row.
 */
@Injectable()
export class ConsentProofVerifier {
  private readonly verifyJwt: JwksVerifier;

  constructor(config: LedgerWalletsConfig) {
    this.verifyJwt = createJwksVerifier({
      jwksUrl: consentJwksUrl(config),
      issuer: config.LEDGER_CONSENT_ISSUER,
      audience: CONSENT_PROOF_AUDIENCE,
      typ: CONSENT_PROOF_TYP,
      requiredClaims: ['jti', 'intent_id', 'step'],
    });
  }

  async verify(token: string): Promise<VerifiedConsent> {
    let claims: Record<string, unknown>;
    try {
      claims = await this.verifyJwt(token);
    } catch (error) {
      // The platform verifier speaks in access-token codes; a proof has its own (403, not 401).
      if (error instanceof AppException && error.code === 'TOKEN_EXPIRED') throw new AppException('CONSENT_PROOF_EXPIRED');
      if (error instanceof AppException && error.code === 'TOKEN_INVALID') throw new AppException('CONSENT_PROOF_INVALID');
      throw error; // auth's key set unreachable: 502, nothing moved
    }
    const { sub, intent_id: intentId, step, jti, exp } = claims;
    if (
      typeof sub !== 'string' ||
      sub.length === 0 ||
      typeof intentId !== 'string' ||
      !UUID.test(intentId) ||
      !CONSENT_STEPS.includes(step as ConsentStep) ||
      typeof jti !== 'string' ||
      !UUID.test(jti) ||
      typeof exp !== 'number'
    ) {
      throw new AppException('CONSENT_PROOF_INVALID', 'The consent proof does not carry the expected claims');
    }
    return {
      userId: sub,
      intentId: intentId.toLowerCase(),
      step: step as ConsentStep,
      jti: jti.toLowerCase(),
      expiresAt: new Date(exp * 1000),
    };
  }
}
