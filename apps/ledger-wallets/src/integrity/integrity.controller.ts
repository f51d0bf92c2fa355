import { Controller, Get, Headers, HttpCode, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { IntegrityCheckRecordView, IntegrityCheckResultView, IntegrityChecksQueryDto } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { ApiAuditorErrors, auditRequester, identifyAuditor } from '../audit/auditors';
import { OperatorTokens } from '../corrections/operator-tokens.service';
import { type IntegrityCheckResult, IntegrityCheckService } from './integrity-check.service';

/**
 * Integrity checks on demand and their history. Like corrections and audits, every call carries a
 * platform service's key (the orchestrator's compliance routes, or the operators' tooling) AND the
 * acting operator's access token from auth, whose id each run records as `requestedBy`.
 */
@ApiTags('integrity')
// Both at once (one requirement object, not two alternatives): the service key and the operator's token.
@ApiSecurity({ serviceKey: [], bearer: [] })
@ApiAuditorErrors()
@Controller('internal/integrity-checks')
@UseGuards(ServiceKeyGuard)
export class IntegrityController {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly checks: IntegrityCheckService,
  ) {}

  /** Runs the nightly check now (compliance). Never modifies ledger data. */
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Run the integrity check now, recorded under the operator the access token names' })
  @ApiOkResponse({ type: IntegrityCheckResultView })
  async run(@Headers('authorization') authorization: string | undefined, @Req() request: FastifyRequest): Promise<IntegrityCheckResult> {
    const operator = await identifyAuditor(this.tokens, authorization, 'run an integrity check');
    return this.checks.run(auditRequester(operator, request));
  }

  @Get()
  @ApiOperation({ summary: 'The latest checks, newest first, with who asked for each and the outcome of its alert' })
  @ApiOkResponse({ type: [IntegrityCheckRecordView], description: 'the latest checks, newest first' })
  @ApiErrors('VALIDATION_ERROR')
  async recent(
    @Query() query: IntegrityChecksQueryDto,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<Record<string, unknown>[]> {
    await identifyAuditor(this.tokens, authorization, 'read integrity checks');
    return this.checks.recent(query.limit ?? 20);
  }
}
