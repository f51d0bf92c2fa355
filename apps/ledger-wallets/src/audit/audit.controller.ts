import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { type AccountAuditReport, AccountAuditService } from './account-audit.service';
import { AccountAuditReportView } from './account-audit.views';

@ApiTags('audit')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS')
@Controller('internal/accounts')
@UseGuards(ServiceKeyGuard)
export class AuditController {
  constructor(private readonly audits: AccountAuditService) {}

  /** Spec 2 "Audit on demand": details, stored vs recomputed balance, symmetry, orphans, OK / WARNING / CRITICAL. */
  @Get(':id/audit')
  @ApiOkResponse({ type: AccountAuditReportView, description: 'the report, whatever its status (a CRITICAL finding is still a 200)' })
  // AMOUNT_OUT_OF_RANGE: a total that a JSON number cannot carry exactly is refused, never rounded.
  @ApiErrors('VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND', 'AMOUNT_OUT_OF_RANGE')
  audit(@Param('id', UuidParamPipe) id: string): Promise<AccountAuditReport> {
    return this.audits.audit(id);
  }
}
