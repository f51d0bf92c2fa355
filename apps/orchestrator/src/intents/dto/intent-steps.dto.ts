import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

export class VerifyPinDto {
  @ApiProperty({
    example: '2580',
    pattern: '^\\d{4,6}$',
    description: "the initiator's own PIN (the sender of a transfer, the agent of a cash operation); field code INVALID_PIN_FORMAT",
  })
  @IsString({ context: { code: 'INVALID_PIN_FORMAT' } })
  @Matches(/^\d{4,6}$/, { message: 'pin must be 4 to 6 digits', context: { code: 'INVALID_PIN_FORMAT' } })
  pin: string;
}

export class VerifyOtpDto {
  @ApiProperty({
    example: '493027',
    pattern: '^\\d{6}$',
    description: 'the 6-digit code sent by SMS to the customer of the cash-out; field code INVALID_OTP_FORMAT',
  })
  @IsString({ context: { code: 'INVALID_OTP_FORMAT' } })
  @Matches(/^\d{6}$/, { message: 'otpCode must be 6 digits', context: { code: 'INVALID_OTP_FORMAT' } })
  otpCode: string;
}
