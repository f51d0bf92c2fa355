import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { APPROVAL_REASON_MAX, APPROVAL_REASON_MIN, ApprovalReason } from '../../common/approval-reason';
import { RULE_CODES, type RuleCode } from '../rules/monitoring-rule';
import { CASE_STATUSES, type CaseStatus } from './case.types';

const UUID_EXAMPLE = '7b0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b';

/** The paging fields of the monitoring lists. */
class PageQuery {
  @ApiProperty({ required: false, minimum: 1, maximum: 100, default: 20, example: 20, description: 'page size (field code INVALID_LIMIT)' })
  @OptionalField()
  @Transform(({ value }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value))
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;

  @ApiProperty({
    required: false,
    maxLength: 200,
    description: 'nextCursor of the previous page, with the same filters (field code INVALID_CURSOR)',
    example: 'WyIyMDI2LTExLTIyVDEwOjAwOjAwLjAwMFoiLCI3YjBlNGY5YS0xYjJkLTRlM2YtOGE1Yi02YzdkOGU5ZjBhMWIiXQ',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;
}

export class AlertsQueryDto extends PageQuery {
  @ApiProperty({ required: false, enum: RULE_CODES, description: 'only this rule’s alerts (field code INVALID_RULE)' })
  @OptionalField()
  @IsIn(RULE_CODES, { context: { code: 'INVALID_RULE' } })
  rule?: RuleCode;

  @ApiProperty({ required: false, format: 'uuid', description: 'only alerts about this person (user id)', example: UUID_EXAMPLE })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  subjectUserId?: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    description: 'only the alerts of this case',
    example: '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b',
  })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  caseId?: string;
}

export class CasesQueryDto extends PageQuery {
  @ApiProperty({ required: false, enum: CASE_STATUSES, description: 'only cases in this status (field code INVALID_STATUS)' })
  @OptionalField()
  @IsIn(CASE_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: CaseStatus;

  @ApiProperty({
    required: false,
    format: 'uuid',
    description: 'only cases assigned to this officer',
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
  })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  assigneeId?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'only cases about this person (user id)', example: UUID_EXAMPLE })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  subjectUserId?: string;
}

export class RuleFailuresQueryDto extends PageQuery {
  // failures are paged by their numeric id, not by the (time, id) keys of the other monitoring lists
  @ApiProperty({
    required: false,
    pattern: '^[1-9][0-9]{0,17}$',
    description: 'nextCursor of the previous page (the id of its last failure), with the same filters (field code INVALID_CURSOR)',
    example: '1042',
  })
  declare cursor?: string;

  @ApiProperty({ required: false, enum: RULE_CODES, description: 'only this rule’s failures (field code INVALID_RULE)' })
  @OptionalField()
  @IsIn(RULE_CODES, { context: { code: 'INVALID_RULE' } })
  rule?: RuleCode;
}

/** `GET /cases/{caseId}/operations`: pages of `limit` (100 by default) after `cursor`. */
export class CaseOperationsQueryDto extends PageQuery {}

/** The case version an officer decides on (the `version` of the case view they read). */
export function ExpectedVersion(what: string): PropertyDecorator {
  return (target, key) => {
    ApiProperty({
      minimum: 0,
      maximum: 2_147_483_647,
      example: 5,
      description:
        `the \`version\` of the case as the officer last read it (GET /api/v1/compliance/cases/{caseId}); ${what} is refused with ` +
        '409 CASE_CHANGED and nothing changes if the case moved since (a new alert, note, evidence, assignment) (field code INVALID_VERSION)',
    })(target, key);
    IsInt({ context: { code: 'INVALID_VERSION' } })(target, key);
    Min(0, { context: { code: 'INVALID_VERSION' } })(target, key);
    Max(2_147_483_647, { context: { code: 'INVALID_VERSION' } })(target, key);
  };
}

export class AssignCaseDto {
  @ApiProperty({
    required: false,
    format: 'uuid',
    description:
      'the officer (user id) who takes the case; absent: the caller. Must hold compliance.monitoring (CASE_ASSIGNEE_NOT_OFFICER)',
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
  })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  assigneeId?: string;
}

/** Free text kept in the case's history: 1 to 2 000 characters, not only blanks. */
function CaseText(description: string, example: string): PropertyDecorator {
  return (target, key) => {
    ApiProperty({ description: `${description} (field code INVALID_TEXT)`, example, minLength: 1, maxLength: 2000 })(target, key);
    IsString({ context: { code: 'INVALID_TEXT' } })(target, key);
    MaxLength(2000, { context: { code: 'INVALID_TEXT' } })(target, key);
    Matches(/\S/, { message: 'must not be blank', context: { code: 'INVALID_TEXT' } })(target, key);
  };
}

export class CaseNoteDto {
  @CaseText('the note', 'Called the customer: says the deposits are sales of a shop, asked for receipts')
  text: string;
}

export const EVIDENCE_KINDS = ['TRANSACTION', 'PERSON_360'] as const;

export class CaseEvidenceDto {
  @ApiProperty({
    enum: EVIDENCE_KINDS,
    example: 'TRANSACTION',
    description: 'TRANSACTION: an operation the feed received, by its ledger reference; PERSON_360: a person’s 360 view as it is now',
  })
  @IsIn(EVIDENCE_KINDS, { context: { code: 'INVALID_KIND' } })
  kind: (typeof EVIDENCE_KINDS)[number];

  @ApiProperty({
    required: false,
    example: 'MMPTX2611220A1B2C3',
    maxLength: 64,
    description: 'TRANSACTION: the ledger reference (required then)',
  })
  @ValidateIf((o: CaseEvidenceDto) => o.kind === 'TRANSACTION' || o.reference !== undefined)
  @IsString({ context: { code: 'INVALID_REFERENCE' } })
  @Matches(/^[A-Z0-9]{1,64}$/, {
    message: 'must be a ledger reference (capital letters and digits)',
    context: { code: 'INVALID_REFERENCE' },
  })
  reference?: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: UUID_EXAMPLE,
    description: 'PERSON_360: the person (user id); absent: the case’s subject',
  })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  userId?: string;

  @ApiProperty({
    required: false,
    example: 'Same agent on every cash-out',
    minLength: 1,
    maxLength: 2000,
    description: 'why it matters (field code INVALID_TEXT)',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_TEXT' } })
  @MaxLength(2000, { context: { code: 'INVALID_TEXT' } })
  @Matches(/\S/, { message: 'must not be blank', context: { code: 'INVALID_TEXT' } })
  note?: string;
}

export const OFFICER_DECISIONS = ['NO_ACTION', 'FREEZE'] as const;

export class CaseDecisionDto {
  @ApiProperty({
    enum: OFFICER_DECISIONS,
    example: 'NO_ACTION',
    description:
      'NO_ACTION closes the case now; FREEZE asks a second officer (CASE_FREEZE). A suspicion report closes a case from the regulatory reports module, not here (field code INVALID_DECISION)',
  })
  @IsIn(OFFICER_DECISIONS, { context: { code: 'INVALID_DECISION' } })
  decision: (typeof OFFICER_DECISIONS)[number];

  @ApiProperty({
    example: 'Receipts of the shop match every deposit: ordinary trade',
    minLength: APPROVAL_REASON_MIN,
    maxLength: APPROVAL_REASON_MAX,
    description: 'why: the case’s decision note (and the FREEZE request’s reason); not blank (field code INVALID_REASON)',
  })
  @ApprovalReason()
  note: string;

  @ExpectedVersion('the decision')
  expectedVersion: number;
}
