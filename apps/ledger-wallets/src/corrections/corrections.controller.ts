import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { CorrectionApproval } from './correction-approval.service';
import { type CorrectionPreview, CorrectionPreviewService } from './correction-preview.service';
import type { CorrectionView } from './correction-view';
import { CorrectionsService } from './corrections.service';
import { CorrectionsSettings } from './corrections.settings';
import { CorrectionDetailViewDto, CorrectionViewDto } from './dto/correction.views';
import { CorrectionPreviewView } from './dto/correction-preview.views';
import { ApproveCorrectionDto, ExpireCorrectionDto, RejectCorrectionDto } from './dto/decide-correction.dto';
import { ListCorrectionsQuery } from './dto/list-corrections.dto';
import { SubmitCorrectionDto } from './dto/submit-correction.dto';
import { OperatorTokens } from './operator-tokens.service';

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

/** The two kinds of request, as the OpenAPI document shows them. */
const SUBMIT_EXAMPLES = {
  account: {
    summary: 'ACCOUNT: credit one account from suspense',
    value: {
      idempotencyKey: '6f2d8c4a-1b3e-4a7f-9d5c-8e0a2b4c6d1f',
      accountId: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c',
      direction: 'CREDIT',
      amount: 25_000,
      reason: 'Cash-in of 2026-03-02 credited twice by the partner bank',
    },
  },
  reversal: {
    summary: 'REVERSAL: undo a whole transaction, named by its reference (or transactionId)',
    value: {
      idempotencyKey: '0a4c6e8f-2b3d-4f5a-9c7e-1d2f3a4b5c6d',
      kind: 'REVERSAL',
      referenceId: 'MMPTX261126K7Q2M9Z',
      reason: 'Partner payment anomaly 41: order had expired, goods not handed over',
    },
  },
};

/**
 * Balance corrections under maker-checker (docs/ledger-corrections.md). Every call carries the
 * service key (the caller is a platform service) AND the acting operator's access token from auth
 * (`Authorization: Bearer`): the operator is whoever the token names, with the token's roles.
 */
@ApiTags('corrections')
// Both at once (one requirement object, not two alternatives): the service key and the operator's token.
@ApiSecurity({ serviceKey: [], bearer: [] })
@ApiResponse({ status: 401, description: 'OPERATOR_TOKEN_REQUIRED, TOKEN_INVALID, TOKEN_EXPIRED or INVALID_SERVICE_CREDENTIALS', ...ERROR })
@ApiResponse({ status: 403, description: 'OPERATOR_ROLE_REQUIRED', ...ERROR })
@Controller('internal/corrections')
@UseGuards(ServiceKeyGuard)
export class CorrectionsController {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly corrections: CorrectionsService,
    private readonly approval: CorrectionApproval,
    private readonly settings: CorrectionsSettings,
    private readonly previews: CorrectionPreviewService,
  ) {}

  /** Reading corrections is for the operators who make, check or oversee them, and for auditors. */
  private async reader(authorization: string | undefined): Promise<void> {
    const operator = await this.tokens.identify(authorization);
    OperatorTokens.require(operator, this.settings.readerRoles, 'read corrections');
  }

  @Post()
  @ApiOperation({
    summary: 'Maker: submit a correction (nothing moves until another operator approves it)',
    description:
      'kind ACCOUNT (default): one account against suspense. kind REVERSAL: the whole ledger transaction named by transactionId or referenceId, undone entry by entry on approval; a transaction is reversed at most once and a reversal is never reversed.',
  })
  @ApiBody({ type: SubmitCorrectionDto, examples: SUBMIT_EXAMPLES })
  @ApiResponse({ status: 201, description: 'the correction, PENDING_APPROVAL', type: CorrectionViewDto })
  @ApiResponse({
    status: 200,
    description: 'the same idempotency key and body again: the stored correction, in its current state (Idempotent-Replayed: true)',
    type: CorrectionViewDto,
  })
  @ApiResponse({
    status: 400,
    description:
      'VALIDATION_ERROR (also a field of the other kind, or a REVERSAL naming its transaction twice or not at all), ACCOUNT_NOT_ALLOWED (the suspense account)',
    ...ERROR,
  })
  @ApiResponse({ status: 403, description: 'OPERATOR_ROLE_REQUIRED (not a maker)', ...ERROR })
  @ApiResponse({ status: 404, description: 'ACCOUNT_NOT_FOUND (ACCOUNT), TRANSACTION_NOT_FOUND (REVERSAL)', ...ERROR })
  @ApiResponse({
    status: 409,
    description: 'REVERSAL_ALREADY_REQUESTED (a reversal of that transaction awaits approval), TRANSACTION_ALREADY_REVERSED',
    ...ERROR,
  })
  @ApiResponse({
    status: 422,
    description: 'IDEMPOTENCY_KEY_CONFLICT, REVERSAL_OF_REVERSAL (the transaction is itself a reversal)',
    ...ERROR,
  })
  async submit(
    @Body() dto: SubmitCorrectionDto,
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CorrectionView> {
    const maker = await this.tokens.identify(authorization);
    const { view, replayed } = await this.corrections.submit(dto, maker);
    reply.status(replayed ? 200 : 201);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return view;
  }

  @Get()
  @ApiOperation({ summary: 'Corrections, newest first (e.g. ?status=PENDING_APPROVAL for the checkers)' })
  @ApiOkResponse({ type: [CorrectionViewDto], description: 'at most `limit` corrections, without their journal; no cursor' })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (status or limit)', ...ERROR })
  @ApiResponse({
    status: 403,
    description: 'OPERATOR_ROLE_REQUIRED (readers hold a maker, approver, compliance or AUDITOR role)',
    ...ERROR,
  })
  async list(@Query() query: ListCorrectionsQuery, @Headers('authorization') authorization: string | undefined): Promise<CorrectionView[]> {
    await this.reader(authorization);
    return this.corrections.list(query);
  }

  @Get('by-key/:key')
  @ApiSecurity('serviceKey')
  @ApiOperation({
    summary:
      "The maker-checker engine: the correction submitted under an idempotency key (its approval request's id), without an operator token",
    description:
      'Read by the engine when no person is acting: to settle an approval whose execution was cut (EXECUTED here: the request is executed; still PENDING_APPROVAL: the engine expires it) and to expire a correction whose request was never stored.',
  })
  @ApiOkResponse({ type: CorrectionDetailViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (key not a UUID)', ...ERROR })
  @ApiResponse({ status: 404, description: 'CORRECTION_NOT_FOUND (nothing was submitted under this key)', ...ERROR })
  byKey(@Param('key', UuidParamPipe) key: string): Promise<CorrectionView> {
    return this.corrections.byKey(key);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One correction with its journal: who did what, when and why' })
  @ApiOkResponse({ type: CorrectionDetailViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (id not a UUID)', ...ERROR })
  @ApiResponse({
    status: 403,
    description: 'OPERATOR_ROLE_REQUIRED (readers hold a maker, approver, compliance or AUDITOR role)',
    ...ERROR,
  })
  @ApiResponse({ status: 404, description: 'CORRECTION_NOT_FOUND', ...ERROR })
  async get(@Param('id', UuidParamPipe) id: string, @Headers('authorization') authorization: string | undefined): Promise<CorrectionView> {
    await this.reader(authorization);
    return this.corrections.get(id);
  }

  @Get(':id/preview')
  @ApiOperation({
    summary: 'What approving would write now: the postings, and each account before and after',
    description:
      'The same entries the approval writes (ACCOUNT: the account against suspense; REVERSAL: the inverse of every entry of the transaction), with balances read now, without a lock: the approval checks again under its lock.',
  })
  @ApiOkResponse({ type: CorrectionPreviewView })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (id not a UUID)', ...ERROR })
  @ApiResponse({
    status: 403,
    description: 'OPERATOR_ROLE_REQUIRED (readers hold a maker, approver, compliance or AUDITOR role)',
    ...ERROR,
  })
  @ApiResponse({ status: 404, description: 'CORRECTION_NOT_FOUND', ...ERROR })
  async preview(
    @Param('id', UuidParamPipe) id: string,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<CorrectionPreview> {
    await this.reader(authorization);
    return this.previews.preview(id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Checker: approve and execute (signed adjustment against suspense, or the full reversal; compliance alert)',
    description:
      'One SERIALIZABLE transaction. On any refusal nothing is written and the correction stays PENDING_APPROVAL: it can be approved again later (e.g. once the account holds the money).',
  })
  @ApiResponse({ status: 200, description: 'the correction, EXECUTED, with its transaction and journal', type: CorrectionDetailViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (id not a UUID, reason too long)', ...ERROR })
  @ApiResponse({ status: 403, description: 'CORRECTION_SAME_USER, CORRECTION_COMPLIANCE_REQUIRED, OPERATOR_ROLE_REQUIRED', ...ERROR })
  @ApiResponse({ status: 404, description: 'CORRECTION_NOT_FOUND', ...ERROR })
  @ApiResponse({ status: 409, description: 'CORRECTION_ALREADY_DECIDED, TRANSACTION_ALREADY_REVERSED, CONCURRENCY_CONFLICT', ...ERROR })
  @ApiResponse({
    status: 422,
    description:
      'INSUFFICIENT_BALANCE (a DEBIT, or for a REVERSAL any account it takes money back from, above its available balance; treasury and suspense excepted), AMOUNT_OUT_OF_RANGE',
    ...ERROR,
  })
  async approve(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: ApproveCorrectionDto,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<CorrectionView> {
    return this.approval.approve(id, await this.tokens.identify(authorization), dto);
  }

  @Post(':id/expire')
  @HttpCode(200)
  @ApiSecurity('serviceKey')
  @ApiOperation({
    summary: 'The maker-checker engine: a pending correction whose request expired undecided (no operator token: nobody decided)',
    description:
      'EXPIRED, nothing moves, no checker; journaled as `expired` under the calling service (`system:orchestrator`). An expired REVERSAL frees its transaction for a new request. Expiring an EXPIRED correction again answers it unchanged.',
  })
  @ApiResponse({ status: 200, description: 'the correction, EXPIRED, with its journal', type: CorrectionDetailViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (id not a UUID, reason missing or out of bounds)', ...ERROR })
  @ApiResponse({ status: 404, description: 'CORRECTION_NOT_FOUND', ...ERROR })
  @ApiResponse({ status: 409, description: 'CORRECTION_ALREADY_DECIDED (approved or rejected meanwhile)', ...ERROR })
  async expire(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: ExpireCorrectionDto,
    @Req() request: FastifyRequest,
  ): Promise<CorrectionView> {
    return this.corrections.expire(id, request.serviceCaller ?? 'unknown', dto.reason);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Checker: reject (nothing moves; a rejected REVERSAL lets a new one be submitted for its transaction)' })
  @ApiResponse({ status: 200, description: 'the correction, REJECTED, with its journal', type: CorrectionDetailViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (id not a UUID, reason missing or out of bounds)', ...ERROR })
  @ApiResponse({ status: 403, description: 'CORRECTION_SAME_USER, OPERATOR_ROLE_REQUIRED', ...ERROR })
  @ApiResponse({ status: 404, description: 'CORRECTION_NOT_FOUND', ...ERROR })
  @ApiResponse({ status: 409, description: 'CORRECTION_ALREADY_DECIDED', ...ERROR })
  async reject(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: RejectCorrectionDto,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<CorrectionView> {
    return this.corrections.reject(id, await this.tokens.identify(authorization), dto);
  }
}
