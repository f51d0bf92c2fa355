import { Controller, Get, Headers, HttpCode, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { LedgerChainVerificationRecordView, LedgerChainVerificationView, LedgerChainVerificationsQueryDto } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { ApiAuditorErrors, auditRequester, identifyAuditor } from '../audit/auditors';
import { OperatorTokens } from '../corrections/operator-tokens.service';
import { type ChainVerificationResult, ChainVerifier } from './chain-verifier.service';

/**
 * Verifications of the ledger's hash chain (docs/ledger-chain.md), as integrity checks are asked:
 * a platform service's key (the orchestrator's compliance routes, or the operators' tooling) AND the
 * acting operator's access token, whose id each run records as `requestedBy`.
 */
@ApiTags('ledger-chain')
@ApiSecurity({ serviceKey: [], bearer: [] })
@ApiAuditorErrors()
@Controller('internal/ledger-chain/verifications')
@UseGuards(ServiceKeyGuard)
export class ChainController {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly verifier: ChainVerifier,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Verify the hash chain of every account now',
    description:
      "Recomputes every entry hash, checks every account head and every signed anchor, and lists each broken account's earliest break " +
      '(EDITED, INSERTED, DELETED, ANCHOR_MISMATCH, UNTRACEABLE), the earliest tampering first. Reads only; the run is recorded under the ' +
      'operator the access token names. One at a time.',
  })
  @ApiOkResponse({ type: LedgerChainVerificationView })
  @ApiErrors('LEDGER_CHAIN_VERIFICATION_RUNNING')
  async verify(
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ChainVerificationResult> {
    const operator = await identifyAuditor(this.tokens, authorization, 'verify the ledger chain');
    return this.verifier.verify({ requester: auditRequester(operator, request) });
  }

  @Get()
  @ApiOperation({ summary: 'The latest chain verifications, newest first, with who asked for each' })
  @ApiOkResponse({ type: [LedgerChainVerificationRecordView], description: 'the latest verifications, newest first' })
  @ApiErrors('VALIDATION_ERROR')
  async recent(
    @Query() query: LedgerChainVerificationsQueryDto,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<Record<string, unknown>[]> {
    await identifyAuditor(this.tokens, authorization, 'read ledger chain verifications');
    return this.verifier.recent(query.limit ?? 20);
  }
}
