import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { type AccountAuditReport, AccountAuditService } from './account-audit.service';

@Controller('internal/accounts')
@UseGuards(ServiceKeyGuard)
export class AuditController {
  constructor(private readonly audits: AccountAuditService) {}

  /** Spec 2 "Audit on demand": details, stored vs recomputed balance, symmetry, orphans, OK / WARNING / CRITICAL. */
  @Get(':id/audit')
  audit(@Param('id', UuidParamPipe) id: string): Promise<AccountAuditReport> {
    return this.audits.audit(id);
  }
}
