import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsUUID, Matches, Max, Min, ValidateNested } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { type IntentOtpFacts, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { IsOtpCode, IsPhone } from '../common/validators';
import { OTP_PURPOSES, type OtpPurpose } from './otp-purpose';

class PhonePurposeDto {
  @IsPhone()
  phone: string;

  @ApiProperty({ enum: OTP_PURPOSES, example: 'LOGIN', description: 'what the code is for; a code only verifies for its own purpose' })
  @IsIn(OTP_PURPOSES, { context: { code: 'INVALID_OTP_PURPOSE' } })
  purpose: OtpPurpose;
}

export const INTENT_OTP_OPERATIONS = ['CASH_OUT'] as const;

/**
 * What an INTENT code authorises: the code is bound to `intentId` (it verifies for that intent
 * only) and its SMS states the operation, the amount and the agent, so the customer knows what
 * reading it out agrees to.
 */
export class IntentOtpContextDto implements IntentOtpFacts {
  @ApiProperty({ format: 'uuid', example: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15', description: 'the ledger intent the code authorises' })
  @IsUUID()
  intentId: string;

  @ApiProperty({ enum: INTENT_OTP_OPERATIONS, example: 'CASH_OUT', description: 'CASH_OUT: a cash withdrawal with an agent' })
  @IsIn(INTENT_OTP_OPERATIONS)
  operation: (typeof INTENT_OTP_OPERATIONS)[number];

  @ApiProperty({ type: 'integer', example: 5000, description: 'the amount, in the currency (XAF and XOF have no minor unit)' })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  @IsIn(SUPPORTED_CURRENCIES)
  currency: (typeof SUPPORTED_CURRENCIES)[number];

  @ApiProperty({
    required: false,
    example: 'AG04817263',
    description: 'the agent the customer withdraws with, as the platform issued its code',
  })
  @OptionalField()
  @Matches(/^[A-Z0-9]{2,16}$/)
  agentCode?: string;
}

export class SendOtpDto extends PhonePurposeDto {
  @ApiProperty({
    required: false,
    type: IntentOtpContextDto,
    description:
      "Required for purpose INTENT, refused for the others. INTENT codes are the orchestrator's alone (its X-Service-Key; anyone else: 403 OTP_PURPOSE_NOT_ALLOWED).",
  })
  @OptionalField()
  // ValidateNested alone lets an array (or a scalar) through, which then fails in the handler
  @IsObject()
  @ValidateNested()
  @Type(() => IntentOtpContextDto)
  intent?: IntentOtpContextDto;
}

export class VerifyOtpDto extends PhonePurposeDto {
  @IsOtpCode()
  otp: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15',
    description:
      'Ledger intent the code is verified for: required for purpose INTENT (orchestrator only), refused with another purpose (400 CONSENT_OTP_PURPOSE_INVALID). A code sent for another intent is a wrong code. A right code also returns `consentProof`: the single-use proof the ledger needs to move that intent to OTP_VERIFIED.',
  })
  @OptionalField()
  @IsUUID()
  intentId?: string;
}

export class PhoneOtpDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;
}
