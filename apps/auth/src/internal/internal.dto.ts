import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { ROLES, type Role } from '../common/roles';
import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class CreateIdpUserDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;

  /** the caller's id for the new user, so a retry or a compensation targets exactly this user */
  @ApiProperty({
    format: 'uuid',
    required: false,
    example: 'c4a7e2f0-1d3b-4e6a-9b8c-2f5d7e9a1b3c',
    description: 'chosen by the caller (saga); a new one when absent',
  })
  @OptionalField()
  @IsUUID()
  idpUserId?: string;
}

export class CreateLocalUserDto {
  @ApiProperty({
    format: 'uuid',
    example: 'c4a7e2f0-1d3b-4e6a-9b8c-2f5d7e9a1b3c',
    description: 'the identity-provider user (create-idp-user)',
  })
  @IsUUID()
  idpUserId: string;

  @ApiProperty({ enum: ROLES, isArray: true, example: ['CUSTOMER'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ROLES.length)
  @IsIn(ROLES, { each: true, context: { code: 'INVALID_ROLE' } })
  roles: Role[];

  @ApiProperty({
    format: 'uuid',
    required: false,
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
    description: 'chosen by the caller (saga); a new one when absent',
  })
  @OptionalField()
  @IsUUID()
  userId?: string;

  /** the customer/profile record in the orchestrator, when already known */
  @ApiProperty({ format: 'uuid', required: false, example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92' })
  @OptionalField()
  @IsUUID()
  profileId?: string;

  @ApiProperty({
    enum: ['ACTIVE', 'DISABLED'],
    required: false,
    default: 'ACTIVE',
    example: 'DISABLED',
    description: 'DISABLED until the workflow creating the user has finished (it then sets ACTIVE): no login before',
  })
  @OptionalField()
  @IsIn(['ACTIVE', 'DISABLED'])
  status?: 'ACTIVE' | 'DISABLED';
}

export class IdParam {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id: string;
}

export class PhoneQuery {
  @IsPhone()
  phone: string;
}

export class SetStatusDto {
  @ApiProperty({ enum: ['ACTIVE', 'DISABLED'], example: 'DISABLED', description: 'DISABLED ends every session of the user' })
  @IsIn(['ACTIVE', 'DISABLED'])
  status: 'ACTIVE' | 'DISABLED';
}

export class SetRolesDto {
  @ApiProperty({ enum: ROLES, isArray: true, example: ['MASTER_AGENT'], description: 'a change ends every session of the user' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ROLES.length)
  @IsIn(ROLES, { each: true, context: { code: 'INVALID_ROLE' } })
  roles: Role[];
}

export class VerifyResetPinOtpDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;
}

export class IntrospectDto {
  @ApiProperty({
    description: 'an access token',
    maxLength: 4096,
    example:
      'eyJhbGciOiJFZERTQSIsImtpZCI6IlFneEEzb21PMlk1RWZwVkYiLCJ0eXAiOiJhdCtqd3QifQ.eyJzaWQiOiI5YzhiN2E2ZC01ZTRmLTRhM2ItOGMyZC0xZTBmOWE4YjdjNmQiLCJyb2xlcyI6WyJDVVNUT01FUiJdLCJpc3MiOiJtbS1hdXRoIiwiYXVkIjoibW0tcGxhdGZvcm0iLCJzdWIiOiI1YjBlMWM4ZS0zZjBhLTRjNTUtOWE1Ny0xZjFkM2MwYjllMjEiLCJqdGkiOiIzZTJkMWMwYi05YThmLTRlN2QtOGM2Yi01YTRmM2UyZDFjMGIiLCJpYXQiOjE3OTAwMDAwMDAsImV4cCI6MTc5MDAwMDkwMH0.xxoCgQ0pSXXWZdljrLhzM8VZl7tRLS3bMSJf1UNNAFzwT-pCXSUWtNvZbneuZuOiHsR8BDl0wKc4ckxBSETjAw',
  })
  @IsString()
  @MaxLength(4096)
  token: string;
}

export { ResetPinDto as InternalResetPinDto } from '../pin/pin.dto';

/** An operator ends every session of a user. */
export class RevokeAllSessionsDto {
  @ApiProperty({
    example: 'phone reported stolen',
    minLength: 1,
    maxLength: 500,
    description: "the operator's reason, kept with each session ended",
  })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  @Matches(/\S/, { message: 'reason must not be blank' })
  reason: string;
}
