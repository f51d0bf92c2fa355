import { Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ApiOkResponse, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { type IntegrityCheckResult, IntegrityCheckService } from './integrity-check.service';
import { IntegrityCheckRecordView, IntegrityCheckResultView } from './integrity-check.views';

class RecentChecksQuery {
  @ApiPropertyOptional({ description: 'how many of the latest checks to list', minimum: 1, maximum: 100, default: 20, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

@ApiTags('integrity')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS')
@Controller('internal/integrity-checks')
@UseGuards(ServiceKeyGuard)
export class IntegrityController {
  constructor(private readonly checks: IntegrityCheckService) {}

  /** Runs the nightly check now (compliance). Never modifies ledger data. */
  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: IntegrityCheckResultView })
  run(): Promise<IntegrityCheckResult> {
    return this.checks.run('ON_DEMAND');
  }

  @Get()
  @ApiOkResponse({ type: [IntegrityCheckRecordView], description: 'the latest checks, newest first' })
  @ApiErrors('VALIDATION_ERROR')
  recent(@Query() query: RecentChecksQuery): Promise<Record<string, unknown>[]> {
    return this.checks.recent(query.limit ?? 20);
  }
}
