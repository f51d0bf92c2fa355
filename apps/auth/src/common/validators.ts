import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { E164 } from './phone';

/** An E.164 phone field; its per-field code is INVALID_PHONE_FORMAT. */
export function IsPhone(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example: '+237690000001', description: 'E.164 (field code INVALID_PHONE_FORMAT)' }),
    IsString({ context: { code: 'INVALID_PHONE_FORMAT' } }),
    Matches(E164, { message: 'phone must be in E.164 format (+237690000001)', context: { code: 'INVALID_PHONE_FORMAT' } }),
  );
}

/** A PIN field: 4 to 6 digits (the rest of the PIN rule is checked when a PIN is set). */
export function IsPin(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      example: '2580',
      pattern: '^\\d{4,6}$',
      description:
        '4 to 6 digits (field code INVALID_PIN_FORMAT). A new PIN must also pass the PIN rule (PIN_POLICY_VIOLATION): not one repeated digit, not a run (1234, 4321, 8901), not a repeated pair (1212), not the end of the phone number.',
    }),
    IsString({ context: { code: 'INVALID_PIN_FORMAT' } }),
    Matches(/^\d{4,6}$/, { message: 'PIN must be 4 to 6 digits', context: { code: 'INVALID_PIN_FORMAT' } }),
  );
}

/** An OTP code field: exactly 6 digits. */
export function IsOtpCode(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example: '493027', pattern: '^\\d{6}$', description: '6-digit code (field code INVALID_OTP_FORMAT)' }),
    IsString({ context: { code: 'INVALID_OTP_FORMAT' } }),
    Matches(/^\d{6}$/, { message: 'otp must be 6 digits', context: { code: 'INVALID_OTP_FORMAT' } }),
  );
}
