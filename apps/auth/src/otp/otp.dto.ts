import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsOtpCode, IsPhone } from '../common/validators';
import { OTP_PURPOSES, type OtpPurpose } from './otp-purpose';

export class SendOtpDto {
  @IsPhone()
  phone: string;

  @ApiProperty({ enum: OTP_PURPOSES, description: 'what the code is for; a code only verifies for its own purpose' })
  @IsIn(OTP_PURPOSES, { context: { code: 'INVALID_OTP_PURPOSE' } })
  purpose: OtpPurpose;
}

export class VerifyOtpDto extends SendOtpDto {
  @IsOtpCode()
  otp: string;
}

export class PhoneOtpDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;
}
