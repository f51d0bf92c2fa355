import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES } from '@mm/contracts';
import type { Role } from '../common/roles';
import type { UserView } from './local-user';

/*
 * OpenAPI shape of a user as auth shows it (`toUserView`). The class `implements` the code's type,
 * so a field added there without its documentation fails to compile.
 */
export class UserDocView implements UserView {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the local user id' })
  id: string;

  @ApiProperty({ example: '+22507000001', description: 'E.164 phone number' })
  phone: string;

  @ApiProperty({ isArray: true, enum: APP_ROLES, example: ['CUSTOMER'] })
  roles: Role[];

  @ApiProperty({ enum: ['ACTIVE', 'DISABLED'], example: 'ACTIVE' })
  status: 'ACTIVE' | 'DISABLED';

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: "the orchestrator's customer/profile record, once linked",
  })
  profileId: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-09-01T08:30:00.000Z', description: 'when the local user was created' })
  createdAt: string;
}
