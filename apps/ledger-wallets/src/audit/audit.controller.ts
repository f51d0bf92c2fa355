import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { type AccountAuditReport, AccountAuditService } from './account-audit.service';

@ApiTags('audit')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS')
@Controller('internal/accounts')
@UseGuards(ServiceKeyGuard)
export class AuditController {
  constructor(private readonly audits: AccountAuditService) {}

  /** Spec 2 "Audit on demand": details, stored vs recomputed balance, symmetry, orphans, OK / WARNING / CRITICAL. */
  @Get(':id/audit')
  @ApiErrors('VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND')
  audit(@Param('id', UuidParamPipe) id: string): Promise<AccountAuditReport> {
    return this.audits.audit(id);
  }
}
