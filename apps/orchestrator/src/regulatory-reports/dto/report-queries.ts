import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { REPORT_KINDS, type ReportKind } from '../report-content';
import { REPORT_STATES, type ReportState } from '../regulatory-reports.store';
import { IsReportDay, REPORT_DAY_PATTERN } from './report-fields';

/** `GET /api/v1/compliance/reports`: every filter optional, combined with AND. */
export class ListReportsQuery {
  @ApiPropertyOptional({ enum: REPORT_KINDS })
  @OptionalField()
  @IsIn(REPORT_KINDS)
  kind?: ReportKind;

  @ApiPropertyOptional({ enum: REPORT_STATES })
  @OptionalField()
  @IsIn(REPORT_STATES)
  state?: ReportState;

  @ApiPropertyOptional({
    example: '2026-11-01',
    format: 'date',
    pattern: REPORT_DAY_PATTERN,
    description: 'periodDate on or after this day',
  })
  @OptionalField()
  @IsReportDay()
  dateFrom?: string;

  @ApiPropertyOptional({
    example: '2026-11-30',
    format: 'date',
    pattern: REPORT_DAY_PATTERN,
    description: 'periodDate on or before this day',
  })
  @OptionalField()
  @IsReportDay()
  dateTo?: string;

  @ApiPropertyOptional({
    enum: ['OVERDUE', 'DUE_SOON'],
    description:
      'suspicion reports whose pending step (filing, then written confirmation) is overdue, or due within REGULATORY_CONFIRMATION_DUE_SOON_HOURS',
  })
  @OptionalField()
  @IsIn(['OVERDUE', 'DUE_SOON'])
  deadline?: 'OVERDUE' | 'DUE_SOON';

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, example: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({
    maxLength: 200,
    // what the list issues: base64url of `<generated_at ISO>|<report id>` (regulatory-reports.service)
    example: Buffer.from('2026-11-28T00:15:02.118Z|6a1f0c2e-4b3d-4c5e-8f90-1a2b3c4d5e6f', 'utf8').toString('base64url'),
    description: 'nextCursor of the previous page (field code INVALID_CURSOR)',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

/** `GET /api/v1/compliance/reports/:id/document`. */
export class ReportDocumentQuery {
  @ApiProperty({ enum: ['csv', 'html'], example: 'csv' })
  @IsIn(['csv', 'html'])
  format: 'csv' | 'html';
}
