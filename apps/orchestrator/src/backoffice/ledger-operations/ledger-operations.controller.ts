import { Body, Controller, Get, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, type Permission, RequirePermission } from '../../access/permissions';
import { ApprovalRequestView } from '../../approvals/approval.views';
import type { ApprovalAction } from '../../approvals/approval-handler';
import { ApprovalsService } from '../../approvals/approvals.service';
import { E164, uuid } from '../../common/validators';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { AuditTarget, AuditedRead } from '../../staff-audit/audit-metadata';
import { AGENT_CODE, UUID } from './ledger-operations.payloads';
import { LedgerOperationsService } from './ledger-operations.service';
import {
  FloatFundingBody,
  ListHoldsQuery,
  ListLedgerCorrectionsQuery,
  PlaceHoldBody,
  ReleaseHoldBody,
  SubmitLedgerCorrectionBody,
} from './ledger-operations.dto';
import type { LedgerCorrection, LedgerHold } from './ledger-operations.types';
import { LedgerCorrectionDetailView, LedgerCorrectionView, LedgerHoldView } from './ledger-operations.views';

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

/** How a float funding names its agent: id, agent code or phone (LedgerOperationsService.agent), one pattern from the three. */
const AGENT_REF_PATTERN = `^(${[UUID, AGENT_CODE, E164].map((r) => r.source.slice(1, -1)).join('|')})$`;

const UPSTREAM = applyDecorators(
  ApiResponse({
    status: 502,
    description: '`UPSTREAM_UNAVAILABLE`: the ledger is unreachable or failed, or could not verify an access token auth issued',
    ...ERROR,
  }),
  ApiResponse({ status: 504, description: '`UPSTREAM_TIMEOUT`: the ledger did not answer in time', ...ERROR }),
);

/** The two kinds of correction, each with only its own fields (a body mixing them is refused). */
const CORRECTION_EXAMPLES = {
  account: {
    summary: 'ACCOUNT: credit or debit one account against suspense',
    value: {
      kind: 'ACCOUNT',
      accountId: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c',
      direction: 'CREDIT',
      amount: 25_000,
      currency: 'XAF',
      reason: 'Cash-in of 2026-11-27 missing from the account, bank statement line 118',
    },
  },
  reversal: {
    summary: 'REVERSAL: undo a whole transaction, named by its reference (or its transactionId)',
    value: { kind: 'REVERSAL', referenceId: 'MMPTX261126K7Q2M9Z', reason: 'Cash-in of 2026-11-27 credited twice by the partner bank' },
  },
};

/** A route that submits an action to the maker-checker engine: 202 with the pending request. */
const Submits = (summary: string, description: string) =>
  applyDecorators(
    RequirePermission('ledger.corrections'),
    ApiAdminRoute('ledger.corrections'),
    ApiOperation({ summary, description }),
    ApiAcceptedResponse({
      type: ApprovalRequestView,
      description:
        'the approval request, PENDING: another staff member with transactions.approve approves it (POST /api/backoffice/approvals/{id}/approve) or rejects it; its detail (GET /api/backoffice/approvals/{id}) previews what approving writes',
    }),
    ApiOkResponse({
      type: ApprovalRequestView,
      description: 'carried out at once: holds only, when APPROVALS_ONE_PERSON_ACTIONS names the action',
    }),
    UPSTREAM,
  );

/** A read of the ledger's own records, with the reader's token (the ledger checks the role again). */
const Reads = (permission: Permission) =>
  applyDecorators(
    RequirePermission(permission),
    ApiAdminRoute(permission, '`OPERATOR_ROLE_REQUIRED`: the ledger reads corrections and holds only to COMPLIANCE, ADMIN and AUDITOR'),
    UPSTREAM,
  );

/**
 * `/api/backoffice/ledger`: ledger corrections, reversals, agent float funding and holds for staff,
 * under their own identity. Every change is a request of the maker-checker engine (docs/approvals.md):
 * these routes validate it, resolve what the ledger needs (the agent's float account, the account's
 * currency, the hold's amount) and submit it; the approval is the engine's route. The ledger keeps
 * its own maker-checker on corrections, verifying the maker's and the checker's tokens itself
 * (docs/ledger-corrections.md).
 */
@ApiTags('backoffice: ledger')
@Controller('backoffice/ledger')
export class LedgerOperationsController {
  constructor(
    private readonly approvals: ApprovalsService,
    private readonly operations: LedgerOperationsService,
  ) {}

  @Post('corrections')
  @AuditTarget([
    { type: 'account', body: 'accountId' },
    { type: 'transaction', body: 'transactionId' },
    { type: 'transaction', body: 'referenceId' },
  ])
  @ApiBody({ type: SubmitLedgerCorrectionBody, examples: CORRECTION_EXAMPLES })
  @Submits(
    'Submit a ledger correction (ACCOUNT) or the reversal of a whole transaction (REVERSAL)',
    'ACCOUNT: one account credited or debited against suspense. REVERSAL: every entry of the transaction named by referenceId or transactionId undone at once. The ledger records the correction pending under the maker; nothing moves until another staff member approves the request.',
  )
  @ApiErrors(
    'VALIDATION_ERROR',
    'ACCOUNT_NOT_ALLOWED',
    'ACCOUNT_NOT_FOUND',
    'TRANSACTION_NOT_FOUND',
    'APPROVAL_DUPLICATE_PENDING',
    'REVERSAL_OF_REVERSAL',
  )
  async submitCorrection(
    @Body() body: SubmitLedgerCorrectionBody,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const { action, payload } = await this.operations.correctionPayload(body);
    return this.submit(user, action, payload, body.reason, reply);
  }

  @Post('agents/:agentId/float-fundings')
  @Submits(
    "Fund an agent's float",
    'The agent is named by its id, its agent code (AG…) or its phone number; its float is its account in the currency. Carried out as a ledger correction crediting that account against suspense, once another staff member approves.',
  )
  @ApiParam({
    name: 'agentId',
    description: 'the agent id (UUID), agent code (AG and 8 digits) or phone number (E.164); anything else: 400 VALIDATION_ERROR',
    schema: { type: 'string', pattern: AGENT_REF_PATTERN, example: 'AG00412345' },
  })
  @ApiErrors('VALIDATION_ERROR', 'AGENT_NOT_FOUND', 'AGENT_FLOAT_NOT_FOUND', 'APPROVAL_DUPLICATE_PENDING')
  async fundFloat(
    @Param('agentId') agentId: string,
    @Body() body: FloatFundingBody,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const payload = await this.operations.floatFundingPayload(agentId, body);
    return this.submit(user, 'FLOAT_FUNDING', payload, body.reason, reply);
  }

  @Post('holds')
  @AuditTarget({ type: 'account', body: 'accountId' })
  @Submits(
    'Place a hold on part of an account (available → frozen)',
    'Once approved, the ledger moves the amount from available to frozen and records a named hold; the balance does not change.',
  )
  @ApiErrors('VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND', 'APPROVAL_DUPLICATE_PENDING')
  async placeHold(
    @Body() body: PlaceHoldBody,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const payload = await this.operations.holdPayload(body);
    return this.submit(user, 'HOLD_PLACE', payload, body.reason, reply);
  }

  @Post('holds/:holdId/release')
  @Submits('Release a hold (frozen → available)', 'Once approved, the ledger moves the hold’s amount back to available.')
  @ApiParam({ name: 'holdId', format: 'uuid' })
  @ApiErrors('VALIDATION_ERROR', 'HOLD_NOT_FOUND', 'HOLD_ALREADY_RELEASED', 'APPROVAL_DUPLICATE_PENDING')
  async releaseHold(
    @Param('holdId', uuid('holdId')) holdId: string,
    @Body() body: ReleaseHoldBody,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const payload = await this.operations.holdReleasePayload(holdId.toLowerCase(), body, user);
    return this.submit(user, 'HOLD_RELEASE', payload, body.reason, reply);
  }

  @Get('holds')
  @Reads('approvals.read')
  @AuditedRead({ type: 'account', query: 'accountId' })
  @ApiOperation({ summary: 'Holds, newest first: of one account (accountId), active or released (status)' })
  @ApiOkResponse({ type: [LedgerHoldView], description: 'at most `limit` holds (default 50)' })
  @ApiErrors('VALIDATION_ERROR')
  holds(@Query() query: ListHoldsQuery, @CurrentUser() user: AuthUser): Promise<LedgerHold[]> {
    return this.operations.holds(user, query);
  }

  @Get('holds/:holdId')
  @Reads('approvals.read')
  @AuditedRead({ type: 'hold', param: 'holdId' })
  @ApiParam({ name: 'holdId', format: 'uuid' })
  @ApiOperation({ summary: 'One hold: who placed it (and which approval request asked), who released it' })
  @ApiOkResponse({ type: LedgerHoldView })
  @ApiErrors('VALIDATION_ERROR', 'HOLD_NOT_FOUND')
  hold(@Param('holdId', uuid('holdId')) holdId: string, @CurrentUser() user: AuthUser): Promise<LedgerHold> {
    return this.operations.hold(user, holdId.toLowerCase());
  }

  @Get('corrections')
  @Reads('approvals.read')
  @AuditedRead({ type: 'account' })
  @ApiOperation({ summary: "The ledger's corrections, newest first (e.g. ?status=PENDING_APPROVAL)" })
  @ApiOkResponse({ type: [LedgerCorrectionView], description: 'at most `limit` corrections (default 50), without their journal' })
  @ApiErrors('VALIDATION_ERROR')
  corrections(@Query() query: ListLedgerCorrectionsQuery, @CurrentUser() user: AuthUser): Promise<LedgerCorrection[]> {
    return this.operations.corrections(user, query);
  }

  @Get('corrections/:correctionId')
  @Reads('approvals.read')
  @AuditedRead({ type: 'account' })
  @ApiParam({
    name: 'correctionId',
    format: 'uuid',
    description: "the ledger's correction id (named by the approval request's preview, and by its result once executed)",
  })
  @ApiOperation({
    summary: "One ledger correction with the ledger's journal: submitted, approved, executed, rejected or expired, by whom and why",
  })
  @ApiOkResponse({ type: LedgerCorrectionDetailView })
  @ApiErrors('VALIDATION_ERROR', 'CORRECTION_NOT_FOUND')
  correction(@Param('correctionId', uuid('correctionId')) correctionId: string, @CurrentUser() user: AuthUser): Promise<LedgerCorrection> {
    return this.operations.correction(user, correctionId.toLowerCase());
  }

  private async submit(
    user: AuthUser,
    action: ApprovalAction,
    payload: object,
    reason: string,
    reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const request = await this.approvals.submit(user, { action, payload, reason });
    reply.status(request.status === 'PENDING' ? 202 : 200);
    return request;
  }
}
