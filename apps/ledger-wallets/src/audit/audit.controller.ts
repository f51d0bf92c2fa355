import { Controller, Get, Headers, Param, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AccountAuditReportView } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { OperatorTokens } from '../corrections/operator-tokens.service';
import { type AccountAuditReport, AccountAuditService } from './account-audit.service';
import { ApiAuditorErrors, auditRequester, identifyAuditor } from './auditors';

/**
 * Account audits (docs/ledger.md "Audit and the integrity job"). Like corrections, every call carries the service key
 * of a platform service (the orchestrator's compliance routes, or the operators' tooling) AND the
 * acting operator's access token from auth: the audit is journaled under that operator.
 */
@ApiTags('audit')
// Both at once (one requirement object, not two alternatives): the service key and the operator's token.
@ApiSecurity({ serviceKey: [], bearer: [] })
@ApiAuditorErrors()
@Controller('internal/accounts')
@UseGuards(ServiceKeyGuard)
export class AuditController {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly audits: AccountAuditService,
  ) {}

  /** docs/ledger.md "Audit and the integrity job": details, stored vs recomputed balance, symmetry, orphans, OK / WARNING / CRITICAL. */
  @Get(':id/audit')
  @ApiOperation({ summary: "Audit one account (journaled with the operator's id, the calling service and the request id)" })
  @ApiOkResponse({ type: AccountAuditReportView, description: 'the report, whatever its status (a CRITICAL finding is still a 200)' })
  @ApiErrors('VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND')
  async audit(
    @Param('id', UuidParamPipe) id: string,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<AccountAuditReport> {
    const operator = await identifyAuditor(this.tokens, authorization, 'audit an account');
    return this.audits.audit(id, auditRequester(operator, request));
  }
}
