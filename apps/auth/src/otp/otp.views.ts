import { ApiProperty } from '@nestjs/swagger';
import type { ConsentProofAnswer } from '@mm/contracts';
import { OTP_PURPOSES, type OtpPurpose } from './otp-purpose';
import type { OtpProof, OtpService } from './otp.service';

type OtpSent = { sent: true } & Awaited<ReturnType<OtpService['send']>>;

/* OpenAPI shapes of the OTP answers; each class `implements` the type the code returns. */

/** `send-otp` and `reset-pin/request` (202): the same answer whether or not the phone has an account. */
export class OtpSentView implements OtpSent {
  @ApiProperty({ enum: [true], example: true })
  sent: true;

  @ApiProperty({ type: 'integer', example: 300, description: 'seconds the code stays valid' })
  expiresInSec: number;

  @ApiProperty({ type: 'integer', example: 60, description: 'seconds before another code may be sent to this phone' })
  resendAfterSec: number;
}

export class OtpProofView implements OtpProof {
  @ApiProperty({ enum: [true], example: true })
  verified: true;

  @ApiProperty({ enum: OTP_PURPOSES, example: 'LOGIN' })
  purpose: OtpPurpose;

  @ApiProperty({ description: 'opaque single-use proof that a later step redeems' })
  proof: string;

  @ApiProperty({ format: 'date-time', description: 'redeem the proof before this' })
  proofExpiresAt: string;
}

/** `verify-otp` with an `intentId`: the proof plus the consent proof of that intent's OTP step. */
export class OtpConsentProofView extends OtpProofView implements ConsentProofAnswer {
  @ApiProperty({ description: 'the JWT to pass as `consentProof` to the ledger transition' })
  consentProof: string;

  @ApiProperty({ format: 'date-time', description: 'redeem the consent proof before this' })
  consentProofExpiresAt: string;
}

/** `reset-pin/verify-otp` (and its internal twin): the proof, also named `resetToken`. */
export class ResetTokenView extends OtpProofView implements OtpProof {
  @ApiProperty({ description: 'what the reset step redeems (the same value as `proof`)' })
  resetToken: string;
}
