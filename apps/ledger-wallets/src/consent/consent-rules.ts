import { AppException } from '@mm/errors';
import type { ConsentStep } from '@mm/contracts';
import type { IntentStatus } from '@mm/contracts';
import type { VerifiedConsent } from './consent-proof.verifier';

/** The consent step a move needs, if any: OTP_VERIFIED the customer's OTP, PIN_VERIFIED the initiator's PIN. */
export function consentStepOf(to: IntentStatus): ConsentStep | undefined {
  if (to === 'PIN_VERIFIED') return 'PIN';
  if (to === 'OTP_VERIFIED') return 'OTP';
  return undefined;
}

/** What a proof must match before the intent row is even locked: the intent named in the path and the step of the move. */
export function checkProofTarget(proof: VerifiedConsent, intentId: string, step: ConsentStep): void {
  if (proof.intentId !== intentId.toLowerCase())
    throw new AppException('CONSENT_PROOF_MISMATCH', 'The consent proof was issued for another intent');
  if (proof.step !== step) {
    throw new AppException('CONSENT_PROOF_MISMATCH', `The consent proof is for the ${proof.step} step, this move needs the ${step} step`);
  }
}

/**
 * Whose consent counts: the initiator's PIN (the user who created the intent), and for the OTP
 * the user recorded at creation as the one the code goes to. Nobody else's proof moves the intent.
 */
export function checkProofUser(proof: VerifiedConsent, intent: { initiated_by: string; otp_user_id: string | null }): void {
  const expected = proof.step === 'PIN' ? intent.initiated_by : intent.otp_user_id;
  if (!expected || proof.userId !== expected) {
    throw new AppException(
      'CONSENT_PROOF_MISMATCH',
      `The consent proof was issued to another user than the one whose ${proof.step} this intent needs`,
    );
  }
}
