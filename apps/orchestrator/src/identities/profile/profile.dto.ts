import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES, type AppRole, STAFF_ROLES } from '@mm/contracts';
import { IsEmail, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { NullableField, OptionalField } from '@mm/errors';
import { CustomerView } from '../customers/customer.views';

export class UpdateProfileDto {
  @ApiProperty({ required: false, example: 'Awa', minLength: 1, maxLength: 100 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/\S/, { message: 'must not be blank' })
  firstName?: string;

  @ApiProperty({ required: false, example: 'Nkoulou', minLength: 1, maxLength: 100 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/\S/, { message: 'must not be blank' })
  lastName?: string;

  @ApiProperty({ required: false, nullable: true, type: String, example: 'awa@example.cm', maxLength: 254, description: 'null removes it' })
  @NullableField()
  @IsEmail()
  @MaxLength(254)
  email?: string | null;
}

export class StaffView {
  @ApiProperty({
    format: 'uuid',
    example: '1be1a44c-46d6-4d37-a338-6ca27ef63e03',
    description: 'the staff record (the `staffId` of the registration)',
  })
  id: string;

  @ApiProperty({ enum: STAFF_ROLES, example: 'SUPPORT' })
  role: string;

  @ApiProperty({ example: '+237699000001' })
  phone: string;

  @ApiProperty({ example: 'Paul' })
  firstName: string;

  @ApiProperty({ example: 'Mbarga' })
  lastName: string;

  @ApiProperty({ example: 'CM' })
  countryCode: string;

  @ApiProperty({ format: 'date-time', example: '2026-08-03T07:45:00.000Z' })
  createdAt: string;
}

export class MeView {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the user id (access token subject)' })
  userId: string;

  @ApiProperty({ enum: APP_ROLES, example: 'CUSTOMER' })
  role: AppRole;

  @ApiProperty({ type: [String], example: ['transactions.create', 'transactions.read', 'profile.read', 'profile.update'] })
  permissions: string[];

  @ApiProperty({ required: false, type: CustomerView, description: 'end users, merchants and agents' })
  customer?: CustomerView;

  @ApiProperty({ required: false, type: StaffView, description: 'staff (the bootstrap administrator has none)' })
  staff?: StaffView;
}
