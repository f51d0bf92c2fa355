import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { APPROVAL_REASON_MAX, APPROVAL_REASON_MIN, ApprovalReason } from '../../common/approval-reason';
import { STATUS_TEXT_MAX, StatusText } from '../../identities/customers/status-text';
import { FREEZE_REASON_CODES, type FreezeReasonCode } from './freeze-reasons';

export class PeopleSearchQuery {
  @ApiProperty({
    example: '+2376900',
    minLength: 1,
    maxLength: 100,
    description:
      'a phone number (exact or its beginning), the beginning of a first, last, full or business name, an agent code, or any id: user, customer, staff, merchant or agent record, wallet or ledger account',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/\S/, { message: 'must not be blank' })
  q: string;

  @ApiProperty({ required: false, minimum: 1, maximum: 100, default: 20 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiProperty({
    required: false,
    maxLength: 200,
    description: 'nextCursor of the previous page (field code INVALID_CURSOR)',
    example: 'WyIyMDI2LTExLTIyVDEwOjAwOjAwLjAwMFoiLCI3YjBlNGY5YS0xYjJkLTRlM2YtOGE1Yi02YzdkOGU5ZjBhMWIiXQ',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;
}

export class FreezePersonDto {
  @ApiProperty({ enum: FREEZE_REASON_CODES, example: 'FRAUD_SUSPECTED' })
  @IsIn(FREEZE_REASON_CODES)
  reasonCode: FreezeReasonCode;

  @ApiProperty({
    required: false,
    example: 'Suspected account takeover, ticket 4821',
    minLength: 1,
    maxLength: STATUS_TEXT_MAX,
    description: 'what the code does not say; not blank, at most 500 characters counted as Unicode code points (field code INVALID_NOTE)',
  })
  @OptionalField()
  @StatusText('INVALID_NOTE')
  note?: string;
}

/**
 * A reason in words: unfreeze, ending sessions, a second-factor reset. The first and the last become
 * a maker-checker request, whose table takes 3 to 500 characters: so does this field.
 */
export class PersonActionReasonDto {
  @ApiProperty({
    example: 'Identity confirmed at the agency, ticket 4821',
    minLength: APPROVAL_REASON_MIN,
    maxLength: APPROVAL_REASON_MAX,
    description: 'not blank (field code INVALID_REASON)',
  })
  @ApprovalReason()
  reason: string;
}
