import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { STAFF_ROLES, type StaffRole } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

export const AUDIT_OUTCOMES = ['success', 'refused'] as const;

/** `GET /api/backoffice/audit-trail`: every filter optional, combined with AND. */
export class AuditTrailQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'the acting staff user id (field code INVALID_UUID)' })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  actor?: string;

  @ApiPropertyOptional({ enum: STAFF_ROLES, description: 'the actor’s role at the time (field code INVALID_ROLE)' })
  @OptionalField()
  @IsIn(STAFF_ROLES, { context: { code: 'INVALID_ROLE' } })
  role?: StaffRole;

  @ApiPropertyOptional({
    maxLength: 300,
    example: 'POST /api/orchestrator/admin/customers/:customerId/freeze',
    description: 'exactly a method and route template, or a short name such as `admin.freeze` (field code INVALID_ACTION)',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_ACTION' } })
  @MaxLength(300, { context: { code: 'INVALID_ACTION' } })
  action?: string;

  @ApiPropertyOptional({
    maxLength: 40,
    example: 'person',
    description: 'person, account, transaction, approval… (field code INVALID_TARGET)',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_TARGET' } })
  @MaxLength(40, { context: { code: 'INVALID_TARGET' } })
  targetType?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'the target’s id (field code INVALID_TARGET)' })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_TARGET' } })
  @MaxLength(200, { context: { code: 'INVALID_TARGET' } })
  targetId?: string;

  @ApiPropertyOptional({ example: '2026-11-01T00:00:00.000Z', description: 'recorded at or after (ISO 8601; field code INVALID_DATE)' })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00.000Z', description: 'recorded before (ISO 8601; field code INVALID_DATE)' })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  to?: string;

  @ApiPropertyOptional({
    enum: AUDIT_OUTCOMES,
    description: 'success: answered below 400; refused: 400 and above (field code INVALID_OUTCOME)',
  })
  @OptionalField()
  @IsIn(AUDIT_OUTCOMES, { context: { code: 'INVALID_OUTCOME' } })
  outcome?: (typeof AUDIT_OUTCOMES)[number];

  @ApiPropertyOptional({ example: 'FORBIDDEN', description: 'the refusal’s stable error code (field code INVALID_CODE)' })
  @OptionalField()
  @Matches(/^[A-Z][A-Z0-9_]{0,99}$/, { context: { code: 'INVALID_CODE' } })
  code?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'the X-Request-Id of the request (field code INVALID_UUID)' })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  requestId?: string;

  @ApiPropertyOptional({ example: '1001', description: 'nextCursor of the previous page (field code INVALID_CURSOR)' })
  @OptionalField()
  @Matches(/^[1-9]\d{0,17}$/, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, example: 50, description: 'page size (field code INVALID_LIMIT)' })
  @OptionalField()
  @Transform(({ value }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value))
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(200, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;
}
