import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { IsOtpCode, IsPhone } from '../common/validators';
import { OTP_PURPOSES, type OtpPurpose } from './otp-purpose';

export class SendOtpDto {
  @IsPhone()
  phone: string;

  @ApiProperty({ enum: OTP_PURPOSES, example: 'LOGIN', description: 'what the code is for; a code only verifies for its own purpose' })
  @IsIn(OTP_PURPOSES, { context: { code: 'INVALID_OTP_PURPOSE' } })
  purpose: OtpPurpose;
}

export class VerifyOtpDto extends SendOtpDto {
  @IsOtpCode()
  otp: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15',
    description:
      'Ledger intent the code is verified for (purpose must be INTENT, else 400 CONSENT_OTP_PURPOSE_INVALID). A right code then also returns `consentProof`: the single-use proof the ledger needs to move that intent to OTP_VERIFIED.',
  })
  @IsOptional()
  @IsUUID()
  intentId?: string;
}

export class PhoneOtpDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;
}
