import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SignJWT } from 'jose';
import { CONSENT_PROOF_AUDIENCE, CONSENT_PROOF_TYP, type ConsentProofAnswer, type ConsentStep } from '@mm/contracts';
import { AuthConfig } from '../auth.config';
import { AuthSecrets } from '../crypto/auth-secrets';

/**
 * Signs the proof that a user just passed a PIN or OTP check for one intent step (contract in
 * `@mm/contracts` consent.ts). Stateless here: single use is enforced where it is redeemed (the
 * ledger stores the `jti` with the move). Same key as access tokens, so the ledger verifies it with
 * the JWKS it can already fetch; a different `typ` and audience keep the two kinds of token apart.
 */
@Injectable()
export class ConsentProofIssuer {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly secrets: AuthSecrets,
  ) {}

  async issue(userId: string, intentId: string, step: ConsentStep): Promise<ConsentProofAnswer> {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + this.config.CONSENT_PROOF_TTL_SEC;
    const consentProof = await new SignJWT({ intent_id: intentId, step })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.secrets.signing.kid, typ: CONSENT_PROOF_TYP })
      .setIssuer(this.config.JWT_ISSUER)
      .setAudience(CONSENT_PROOF_AUDIENCE)
      .setSubject(userId)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.secrets.signing.privateKey);
    return { consentProof, consentProofExpiresAt: new Date(exp * 1000).toISOString() };
  }
}
