import { ParseUUIDPipe, applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { AppException } from '@mm/errors';

/** E.164: `+`, country code, up to 15 digits (spec README "Fixed across the platform"). */
export const E164 = /^\+[1-9]\d{7,14}$/;

/** For logs: never a full phone number (`+2376•••••01`). */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return '•••';
  return `${phone.slice(0, 5)}${'•'.repeat(phone.length - 7)}${phone.slice(-2)}`;
}

/** An E.164 phone field; its per-field code is INVALID_PHONE_FORMAT (also the top-level code when it is the only fault). */
export function IsPhone(description = 'E.164 phone number'): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      example: '+237690000001',
      pattern: '^\\+[1-9]\\d{7,14}$',
      description: `${description} (field code INVALID_PHONE_FORMAT)`,
    }),
    IsString({ context: { code: 'INVALID_PHONE_FORMAT' } }),
    Matches(E164, { message: 'phone must be in E.164 format (+237690000001)', context: { code: 'INVALID_PHONE_FORMAT' } }),
  );
}

/** A PIN field: 4 to 6 digits (auth applies the rest of its PIN rule: PIN_POLICY_VIOLATION). */
export function IsPin(name = 'pin'): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      example: '2580',
      pattern: '^\\d{4,6}$',
      description: `4 to 6 digits (field code INVALID_PIN_FORMAT); auth's PIN rule then refuses weak ones with PIN_POLICY_VIOLATION (one repeated digit, a run like 1234, a repeated pair like 1212, the end of the phone number)`,
    }),
    IsString({ context: { code: 'INVALID_PIN_FORMAT' } }),
    Matches(/^\d{4,6}$/, { message: `${name} must be 4 to 6 digits`, context: { code: 'INVALID_PIN_FORMAT' } }),
  );
}

/** A 6-digit OTP code. */
export function IsOtpCode(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example: '493027', pattern: '^\\d{6}$', description: '6-digit code sent by SMS (field code INVALID_OTP_FORMAT)' }),
    IsString({ context: { code: 'INVALID_OTP_FORMAT' } }),
    Matches(/^\d{6}$/, { message: 'otp must be 6 digits', context: { code: 'INVALID_OTP_FORMAT' } }),
  );
}

/** A route parameter that must be a UUID: 400 VALIDATION_ERROR naming `field`, with the per-field code INVALID_UUID. */
export const uuid = (field: string): ParseUUIDPipe =>
  new ParseUUIDPipe({
    exceptionFactory: () =>
      new AppException('VALIDATION_ERROR', `${field} must be a UUID`, {
        errors: [{ field, code: 'INVALID_UUID', message: 'must be a UUID' }],
      }),
  });
