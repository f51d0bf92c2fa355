import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { ROLES, type Role } from '../common/roles';
import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class CreateIdpUserDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;
}

export class CreateLocalUserDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  idpUserId: string;

  @ApiProperty({ enum: ROLES, isArray: true })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ROLES.length)
  @IsIn(ROLES, { each: true, context: { code: 'INVALID_ROLE' } })
  roles: Role[];

  /** the customer/profile record in the orchestrator, when already known */
  @ApiProperty({ format: 'uuid', required: false })
  @IsOptional()
  @IsUUID()
  profileId?: string;
}

export class IdParam {
  @IsUUID()
  id: string;
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
