import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { APP_ROLES, CUSTOMER_ROLES, CUSTOMER_STATUSES, type AppRole, type CustomerRole, type CustomerStatus } from '@mm/contracts';
import { APPROVAL_REASON_MAX, APPROVAL_REASON_MIN, ApprovalReason } from '../../common/approval-reason';
import { E164 } from '../../common/validators';
import { STATUS_TEXT_MAX, StatusText } from '../customers/status-text';
import { CurrencyAccountsView } from '../directory/directory.views';

export class CustomerSearchQuery {
  @ApiProperty({ required: false, example: '+237690000001', description: 'exact phone (field code INVALID_PHONE_FORMAT)' })
  @OptionalField()
  @Matches(E164, { message: 'phone must be in E.164 format', context: { code: 'INVALID_PHONE_FORMAT' } })
  phone?: string;

  @ApiProperty({ required: false, example: '+2376900', description: 'prefix of the phone number, first name or last name', maxLength: 100 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  q?: string;

  @ApiProperty({ required: false, enum: CUSTOMER_STATUSES })
  @OptionalField()
  @IsIn(CUSTOMER_STATUSES)
  status?: CustomerStatus;

  @ApiProperty({ required: false, enum: CUSTOMER_ROLES })
  @OptionalField()
  @IsIn(CUSTOMER_ROLES)
  role?: CustomerRole;

  @ApiProperty({ required: false, minimum: 1, maximum: 100, default: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiProperty({
    required: false,
    description: 'nextCursor of the previous page',
    maxLength: 200,
    example: 'WyIyMDI2LTExLTIyVDEwOjAwOjAwLjAwMFoiLCI3YjBlNGY5YS0xYjJkLTRlM2YtOGE1Yi02YzdkOGU5ZjBhMWIiXQ',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class StatusChangeDto {
  @ApiProperty({
    example: 'Suspected account takeover, ticket 4821',
    minLength: 1,
    maxLength: STATUS_TEXT_MAX,
    description: 'not blank; at most 500 characters counted as Unicode code points (field code INVALID_REASON)',
  })
  @StatusText('INVALID_REASON')
  reason: string;
}

/** An unfreeze becomes a maker-checker request: its reason takes what the request's table takes. */
export class UnfreezeDto {
  @ApiProperty({
    example: 'Identity confirmed at the agency, ticket 4821',
    minLength: APPROVAL_REASON_MIN,
    maxLength: APPROVAL_REASON_MAX,
    description: 'not blank (field code INVALID_REASON)',
  })
  @ApprovalReason()
  reason: string;
}

export class ChangeRoleDto {
  @ApiProperty({
    enum: APP_ROLES,
    example: 'MASTER_AGENT',
    description:
      'within a family only: AGENT ↔ MASTER_AGENT, or among SUPPORT, COMPLIANCE, ADMIN and AUDITOR (else 409 ROLE_CHANGE_NOT_ALLOWED)',
  })
  @IsIn(APP_ROLES)
  role: AppRole;
}

export class SetMasterAgentDto {
  @ApiProperty({ nullable: true, type: String, example: 'AG00012345', description: 'the master agent code; null detaches the agent' })
  @ValidateIf((_, v) => v !== null)
  @Matches(/^AG\d{8}$/, { message: 'masterAgentCode must be AG and 8 digits, or null' })
  masterAgentCode: string | null;
}

export class RoleChangeView {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  userId: string;

  @ApiProperty({ enum: APP_ROLES, example: 'AGENT', description: 'the role before the change' })
  from: AppRole;

  @ApiProperty({ enum: APP_ROLES, example: 'MASTER_AGENT', description: 'the role now' })
  role: AppRole;
}

export class CreateOrganisationDto {
  @ApiProperty({ example: 'Réseau Awa SARL', minLength: 1, maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/\S/, { message: 'must not be blank' })
  name: string;

  @ApiProperty({
    example: 'AG00012345',
    description: 'the master agent the organisation belongs to (404 AGENT_NOT_FOUND, 422 NOT_A_MASTER_AGENT)',
  })
  @Matches(/^AG\d{8}$/, { message: 'masterAgentCode must be AG and 8 digits' })
  masterAgentCode: string;
}

export class OrganisationView {
  @ApiProperty({ format: 'uuid', example: '855e2b1c-40c9-43dd-a9d3-b9b4512104dd' })
  organisationId: string;

  @ApiProperty({ example: 'Réseau Awa SARL' })
  name: string;

  @ApiProperty({ format: 'uuid', example: 'a9725a8d-eb6c-45c0-9177-8b05870df8fb', description: 'the corporate wallet' })
  walletId: string;

  @ApiProperty({ type: CurrencyAccountsView })
  accounts: CurrencyAccountsView;

  @ApiProperty({
    format: 'uuid',
    example: '6c2039c9-dfbc-42ef-869c-420254609afd',
    description: 'the agent id of the master agent (not its user id)',
  })
  masterAgentId: string;
}
