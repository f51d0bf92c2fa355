import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import {
  OPERATION_STATUSES,
  OPERATION_TYPES,
  type OperationSearchStatus,
  type OperationSearchType,
  TRANSACTION_REFERENCE,
} from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { PageCursorField, PageLimitField } from '../../../common/page-query.fields';
import { E164 } from '../../../common/validators';

/** A whole number in a query string (digits only); anything else reaches the validator as it came and is refused. */
const toInteger = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value);

/** `GET /api/backoffice/transactions`: every filter optional, combined with AND. */
export class TransactionSearchQuery {
  @ApiPropertyOptional({
    example: 'MMPTX2611220A1B2C3',
    pattern: TRANSACTION_REFERENCE.source,
    description: 'a transaction reference (field code INVALID_REFERENCE)',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_REFERENCE' } })
  @Matches(TRANSACTION_REFERENCE, { message: 'reference must look like MMPTX2611220A1B2C3', context: { code: 'INVALID_REFERENCE' } })
  reference?: string;

  @ApiPropertyOptional({
    example: '+237690000001',
    pattern: E164.source,
    description:
      "a person's phone (E.164): operations on any of their accounts (field code INVALID_PHONE_FORMAT); nobody with this phone: an empty page",
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_PHONE_FORMAT' } })
  @Matches(E164, { message: 'phone must be in E.164 format (+237690000001)', context: { code: 'INVALID_PHONE_FORMAT' } })
  phone?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
    description: 'a ledger account id: operations debiting or crediting it (field code INVALID_UUID)',
  })
  @OptionalField()
  @IsUUID('all', { context: { code: 'INVALID_UUID' } })
  accountId?: string;

  @ApiPropertyOptional({ enum: OPERATION_TYPES, description: "ADJUSTMENT: an operator's correction or reversal (field code INVALID_TYPE)" })
  @OptionalField()
  @IsIn(OPERATION_TYPES, { context: { code: 'INVALID_TYPE' } })
  type?: OperationSearchType;

  @ApiPropertyOptional({
    enum: OPERATION_STATUSES,
    description: 'the intent status; an ADJUSTMENT is SUCCEEDED (field code INVALID_STATUS)',
  })
  @OptionalField()
  @IsIn(OPERATION_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: OperationSearchStatus;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 1000,
    description: 'amount at least this, in the smallest unit (field code INVALID_AMOUNT; above maxAmount: INVALID_AMOUNT_RANGE)',
  })
  @OptionalField()
  @Transform(toInteger)
  @IsInt({ context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { context: { code: 'INVALID_AMOUNT' } })
  @Max(Number.MAX_SAFE_INTEGER, { context: { code: 'INVALID_AMOUNT' } })
  minAmount?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 50000,
    description: 'amount at most this, in the smallest unit (field code INVALID_AMOUNT)',
  })
  @OptionalField()
  @Transform(toInteger)
  @IsInt({ context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { context: { code: 'INVALID_AMOUNT' } })
  @Max(Number.MAX_SAFE_INTEGER, { context: { code: 'INVALID_AMOUNT' } })
  maxAmount?: number;

  @ApiPropertyOptional({
    example: '2026-11-01T00:00:00.000Z',
    description:
      'at or after this instant: when the intent was created, or the adjustment made (field code INVALID_DATE; not before `to`: INVALID_DATE_RANGE)',
  })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00.000Z', description: 'before this instant (field code INVALID_DATE)' })
  @OptionalField()
  @IsInstant({ context: { code: 'INVALID_DATE' } })
  to?: string;

  @PageCursorField()
  cursor?: string;

  @PageLimitField()
  limit?: number;
}
