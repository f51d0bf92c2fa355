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

  @ApiProperty({
    example: 'otp1.0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a.8h67GFiMhOU7qLjderknhNIDBL8bH2An0kzIYxfQrvY',
    description: 'opaque single-use proof that a later step redeems',
  })
  proof: string;

  @ApiProperty({ format: 'date-time', example: '2026-09-21T14:23:20.000Z', description: 'redeem the proof before this' })
  proofExpiresAt: string;
}

/** `verify-otp` with an `intentId`: the proof plus the consent proof of that intent's OTP step. */
export class OtpConsentProofView extends OtpProofView implements ConsentProofAnswer {
  @ApiProperty({
    description: 'the JWT to pass as `consentProof` to the ledger transition',
    example:
      'eyJhbGciOiJFZERTQSIsImtpZCI6IlFneEEzb21PMlk1RWZwVkYiLCJ0eXAiOiJjb25zZW50K2p3dCJ9.eyJpbnRlbnRfaWQiOiIzZjFjMmE5ZS01YjdkLTRjMWUtOWEyZi02ZDhlMGI0YzdhMTUiLCJzdGVwIjoiT1RQIiwiaXNzIjoibW0tYXV0aCIsImF1ZCI6Im1tLWxlZGdlciIsInN1YiI6IjViMGUxYzhlLTNmMGEtNGM1NS05YTU3LTFmMWQzYzBiOWUyMSIsImp0aSI6IjdkNmM1YjRhLTNlMmYtNGExYi05YzhkLTdlNmY1YTRiM2MyZCIsImlhdCI6MTc5MDAwMDAwMCwiZXhwIjoxNzkwMDAwMTIwfQ.vskJb6VOyeUDbzUvnfe3IFxYqCSSzaNLNy90YAJMPVvRQXPs3AwW9fjGm3PTEJ2QHFRyUFa_mHi21ZqKJ7E7DQ',
  })
  consentProof: string;

  @ApiProperty({ format: 'date-time', example: '2026-09-21T14:15:20.000Z', description: 'redeem the consent proof before this' })
  consentProofExpiresAt: string;
}

/** `reset-pin/verify-otp` (and its internal twin): the proof, also named `resetToken`. */
export class ResetTokenView extends OtpProofView implements OtpProof {
  @ApiProperty({
    example: 'otp1.0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a.8h67GFiMhOU7qLjderknhNIDBL8bH2An0kzIYxfQrvY',
    description:
      "the same value as `proof`; redeemed by auth's internal reset only (POST /auth/internal/reset-pin, called by the orchestrator)",
  })
  resetToken: string;
}
