import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class CheckPinDto {
  @IsPin()
  pin: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15',
    description:
      'Ledger intent the PIN is checked for. When given, a right PIN also returns `consentProof` (PIN step of this intent, this user), which the ledger needs to move the intent to PIN_VERIFIED.',
  })
  @OptionalField()
  @IsUUID()
  intentId?: string;
}

export class ChangePinDto {
  @IsPin()
  oldPin: string;

  // Not the oldPin example: the same PIN again is refused as no change.
  @ApiProperty({ example: '7391' })
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

  @ApiProperty({
    description: 'from reset-pin/verify-otp (or internal verify-reset-pin-otp); valid 10 min, once',
    maxLength: 200,
    example: 'otp1.0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a.8h67GFiMhOU7qLjderknhNIDBL8bH2An0kzIYxfQrvY',
  })
  @IsString()
  @MaxLength(200)
  resetToken: string;

  @IsPin()
  newPin: string;
}
