import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsPhone, IsPin } from '../common/validators';

export class LoginDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;
}

export class RefreshDto {
  @ApiProperty({
    description: 'the single-use refresh token of the last login or refresh',
    maxLength: 200,
    example: 'rt1.v2PTjRavhZNsGu2_Ws8d-hSKVoEm1oW83-ebHY0bPY0',
  })
  @IsString()
  @MaxLength(200)
  refreshToken: string;
}

/** The second step of a staff login. */
export class SecondFactorDto {
  @ApiProperty({
    description: 'the challengeToken the login answered',
    maxLength: 200,
    example: 'sfc1.Qm9vdHN0cmFwIGNoYWxsZW5nZSB0b2tlbiBleGFtcGxl',
  })
  @IsString()
  @MaxLength(200)
  challengeToken: string;

  @ApiProperty({
    example: '492039',
    pattern: '^\\d{6}$',
    description: "the authenticator app's current 6-digit code (field code INVALID_TOTP_FORMAT)",
  })
  @IsString({ context: { code: 'INVALID_TOTP_FORMAT' } })
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits', context: { code: 'INVALID_TOTP_FORMAT' } })
  code: string;

  @ApiProperty({
    required: false,
    example: '730415',
    pattern: '^\\d{6}$',
    description:
      'TOTP_ENROLMENT_REQUIRED only (required then: field code REQUIRED): the 6-digit code the login sent by SMS to the staff phone, proof that the phone is in hand; ignored on a TOTP_REQUIRED challenge (field code INVALID_OTP_FORMAT when malformed)',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_OTP_FORMAT' } })
  @Matches(/^\d{6}$/, { message: 'smsCode must be 6 digits', context: { code: 'INVALID_OTP_FORMAT' } })
  smsCode?: string;
}
