import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class CheckPinDto {
  @IsPin()
  pin: string;
}

export class ChangePinDto {
  @IsPin()
  oldPin: string;

  @IsPin()
  newPin: string;
}

export class ResetPinRequestDto {
  @IsPhone()
  phone: string;
}

export class ResetPinVerifyDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;
}

/** Internal: set the new PIN with the proof of a verified PIN_RESET code. */
export class ResetPinDto {
  @IsPhone()
  phone: string;

  @ApiProperty({ description: 'from reset-pin/verify-otp (or internal verify-reset-pin-otp); valid 10 min, once' })
  @IsString()
  @MaxLength(200)
  resetToken: string;

  @IsPin()
  newPin: string;
}
