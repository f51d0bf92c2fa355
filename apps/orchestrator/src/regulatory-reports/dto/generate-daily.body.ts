import { ApiProperty } from '@nestjs/swagger';
import { IsReportDay, REPORT_DAY_PATTERN } from './report-fields';

/** `POST /api/v1/compliance/reports/daily`. */
export class GenerateDailyReportBody {
  @ApiProperty({
    example: '2026-11-27',
    format: 'date',
    pattern: REPORT_DAY_PATTERN,
    description: 'the day to report, in UTC+01:00; it must be over (field code INVALID_DATE)',
  })
  @IsReportDay()
  date: string;
}
