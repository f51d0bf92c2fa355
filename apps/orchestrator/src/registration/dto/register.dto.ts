import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { SUPPORTED_COUNTRIES } from '../../common/countries';
import { IsPhone, IsPin } from '../../common/validators';
import { MERCHANT_CATEGORIES, type MerchantCategory } from '../../identities/merchants/merchant-categories';
import { CREATED_STAFF_ROLES, type CreatedStaffRole } from '../registration.types';

/** A person's name: 1 to 100 characters, not only spaces. */
function IsName(example: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example, minLength: 1, maxLength: 100 }),
    IsString(),
    MinLength(1),
    MaxLength(100),
    Matches(/\S/, { message: 'must not be blank' }),
  );
}

/** What every registration asks: phone, PIN, names, country; optionally an email and an idempotency id. */
export class RegisterDto {
  @IsPhone('the phone number the user signs in with')
  phone: string;

  @IsPin()
  pin: string;

  @IsName('Awa')
  firstName: string;

  @IsName('Nkoulou')
  lastName: string;

  @ApiProperty({ enum: SUPPORTED_COUNTRIES, example: 'CM', description: 'ISO 3166-1 alpha-2 (field code INVALID_COUNTRY_CODE)' })
  @IsIn(SUPPORTED_COUNTRIES, { context: { code: 'INVALID_COUNTRY_CODE' } })
  countryCode: string;

  @ApiProperty({ required: false, example: 'awa@example.cm', maxLength: 254 })
  @OptionalField()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiProperty({
    required: false,
    example: 'f3b0c1e2-5d4a-4b7c-9e8f-0a1b2c3d4e5f',
    maxLength: 200,
    description: 'the same as the Idempotency-Key header, for clients that cannot set headers; both given must be equal',
  })
  @OptionalField()
  @IsString()
  @Matches(/^[\x21-\x7e]{1,200}$/, { message: 'clientRequestId must be 1 to 200 printable ASCII characters' })
  clientRequestId?: string;
}

export class RegisterMerchantDto extends RegisterDto {
  @ApiProperty({ example: 'Boulangerie du Centre', minLength: 1, maxLength: 120 })
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @Matches(/\S/, { message: 'businessName must not be blank' })
  businessName: string;

  @ApiProperty({ enum: MERCHANT_CATEGORIES, example: 'FOOD_AND_DRINK' })
  @IsIn(MERCHANT_CATEGORIES)
  category: MerchantCategory;
}

export class RegisterAgentDto extends RegisterDto {
  @ApiProperty({
    required: false,
    example: 'AG00012345',
    pattern: '^AG\\d{8}$',
    description: 'code of the master agent this agent works under (404 AGENT_NOT_FOUND, 422 NOT_A_MASTER_AGENT)',
  })
  @OptionalField()
  @Matches(/^AG\d{8}$/, { message: 'masterAgentCode must be AG and 8 digits' })
  masterAgentCode?: string;
}

export class RegisterAdminDto extends RegisterDto {}

export class CreateStaffDto extends RegisterDto {
  @ApiProperty({
    enum: CREATED_STAFF_ROLES,
    example: 'SUPPORT',
    description: 'support operator, compliance/finance officer or auditor (read-only)',
  })
  @IsIn(CREATED_STAFF_ROLES)
  role: CreatedStaffRole;
}

export class ResetPinDto {
  @IsPhone()
  phone: string;

  @ApiProperty({
    example: '493027',
    pattern: '^\\d{6}$',
    description: 'the code sent by POST /api/auth/reset-pin/request (field code INVALID_OTP_FORMAT)',
  })
  @IsString({ context: { code: 'INVALID_OTP_FORMAT' } })
  @Matches(/^\d{6}$/, { message: 'otp must be 6 digits', context: { code: 'INVALID_OTP_FORMAT' } })
  otp: string;

  @IsPin('newPin')
  newPin: string;
}
