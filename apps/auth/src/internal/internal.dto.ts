import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { ROLES, type Role } from '../common/roles';
import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class CreateIdpUserDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;

  /** the caller's id for the new user, so a retry or a compensation targets exactly this user */
  @ApiProperty({ format: 'uuid', required: false, description: 'chosen by the caller (saga); a new one when absent' })
  @IsOptional()
  @IsUUID()
  idpUserId?: string;
}

export class CreateLocalUserDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  idpUserId: string;

  @ApiProperty({ enum: ROLES, isArray: true, example: ['CUSTOMER'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ROLES.length)
  @IsIn(ROLES, { each: true, context: { code: 'INVALID_ROLE' } })
  roles: Role[];

  @ApiProperty({ format: 'uuid', required: false, description: 'chosen by the caller (saga); a new one when absent' })
  @IsOptional()
  @IsUUID()
  userId?: string;

  /** the customer/profile record in the orchestrator, when already known */
  @ApiProperty({ format: 'uuid', required: false })
  @IsOptional()
  @IsUUID()
  profileId?: string;

  @ApiProperty({
    enum: ['ACTIVE', 'DISABLED'],
    required: false,
    default: 'ACTIVE',
    description: 'DISABLED until the workflow creating the user has finished (it then sets ACTIVE): no login before',
  })
  @IsOptional()
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
  @ApiProperty({ enum: ['ACTIVE', 'DISABLED'], description: 'DISABLED ends every session of the user' })
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
  @ApiProperty({ description: 'an access token' })
  @IsString()
  @MaxLength(4096)
  token: string;
}

export { ResetPinDto as InternalResetPinDto } from '../pin/pin.dto';
