import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { decodeCursor } from '../common/cursor';
import { uuid } from '../common/validators';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { AuditTarget, AuditedRead } from '../staff-audit/audit-metadata';
import { ApprovalRequestView } from './approval.views';
import { ApprovalsService } from './approvals.service';
import { ApprovalListQuery, ApproveDto, DecisionsDto, RejectDto, SubmitApprovalDto } from './dto/approval-requests.dto';
import { ApprovalDetailView, ApprovalPageView, DecisionsView } from './dto/approval-pages.views';
import { SUBMIT_APPROVAL_EXAMPLES, SUBMIT_REFUSALS } from './dto/submit-approval.examples';

/**
 * The routes that write: staff who read the inbox and may approve (compliance officers and
 * administrators; never the read-only auditor). The engine then checks the action's own maker or
 * checker permission.
 */
const DECIDERS = ['approvals.read', 'transactions.approve'] as const;

const DECIDE_FORBIDDEN =
  "`FORBIDDEN` also when the caller lacks the action's checker permission (named); `APPROVAL_SELF_DECISION`: the maker never decides their own request; `APPROVAL_COMPLIANCE_REQUIRED`: above APPROVAL_COMPLIANCE_LIMIT only a compliance officer approves";

/**
 * `/api/backoffice/approvals`: the checker's inbox of the maker-checker engine. Reading needs
 * `approvals.read`; submitting and deciding need the permissions of the action's handler, which
 * the engine checks (403 naming the permission). See docs/approvals.md.
 */
@ApiTags('approvals')
@Controller('backoffice/approvals')
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalsService) {}

  @Get()
  @RequirePermission('approvals.read')
  @ApiAdminRoute('approvals.read')
  @AuditedRead({ type: 'approval' })
  @ApiOperation({ summary: 'Approval requests, newest first: filters by status, action, maker, target and age; cursor pagination' })
  @ApiOkResponse({ type: ApprovalPageView })
  @ApiErrors('VALIDATION_ERROR')
  list(@Query() query: ApprovalListQuery): Promise<ApprovalPageView> {
    return this.approvals.list({
      status: query.status,
      action: query.action,
      makerId: query.makerId,
      targetType: query.targetType,
      targetId: query.targetId,
      createdBefore: query.createdBefore,
      after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      limit: query.limit ?? 50,
    });
  }

  @Get(':id')
  @RequirePermission('approvals.read')
  @ApiAdminRoute('approvals.read')
  @AuditedRead({ type: 'approval', param: 'id' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'One request, what approving it would do now (preview), and whether the caller may decide it' })
  @ApiOkResponse({ type: ApprovalDetailView })
  @ApiErrors('VALIDATION_ERROR', 'APPROVAL_NOT_FOUND')
  detail(@Param('id', uuid('id')) id: string, @CurrentUser() user: AuthUser): Promise<ApprovalDetailView> {
    return this.approvals.detail(id, user);
  }

  @Post()
  @RequirePermission(...DECIDERS)
  @ApiAdminRoute(
    DECIDERS.join(' and '),
    "`FORBIDDEN` also when the caller lacks the action's maker permission (named); `OWN_ACCOUNT_ACTION`: a request about the caller's own account",
  )
  @ApiOperation({
    summary:
      'Submit any action to the engine: 202 with the pending request, or 200 with the executed one when configuration lets this action run on one pair of eyes',
  })
  @ApiBody({ type: SubmitApprovalDto, examples: SUBMIT_APPROVAL_EXAMPLES })
  @ApiAcceptedResponse({ type: ApprovalRequestView, description: 'recorded, waiting for a checker' })
  @ApiOkResponse({ type: ApprovalRequestView, description: 'carried out at once (a one-person action)' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'APPROVAL_DUPLICATE_PENDING',
    'APPROVAL_ACTION_UNAVAILABLE',
    // what the action's handler finds when it checks the payload where the action runs
    ...SUBMIT_REFUSALS,
  )
  async submit(
    @Body() body: SubmitApprovalDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    const request = await this.approvals.submit(user, { action: body.action, payload: body.payload, reason: body.reason });
    reply.status(request.status === 'PENDING' ? 202 : 200);
    return request;
  }

  @Post('decisions')
  @HttpCode(200)
  @RequirePermission(...DECIDERS)
  @ApiAdminRoute(DECIDERS.join(' and '))
  @AuditTarget({ type: 'approval', body: 'ids' })
  @ApiOperation({
    summary: 'Approve or reject several requests with one reason; each id answers its own outcome (a refusal does not stop the others)',
  })
  @ApiOkResponse({ type: DecisionsView })
  @ApiErrors('VALIDATION_ERROR')
  async decide(@Body() body: DecisionsDto, @CurrentUser() user: AuthUser): Promise<DecisionsView> {
    return { results: await this.approvals.decideMany(user, body.ids, body.decision, body.reason) };
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RequirePermission(...DECIDERS)
  @ApiAdminRoute(DECIDERS.join(' and '), DECIDE_FORBIDDEN)
  @AuditTarget({ type: 'approval', param: 'id' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({
    summary:
      'Approve and carry out a request: EXECUTED, or FAILED with the code and message of the refusal where it runs (submit it again)',
  })
  @ApiOkResponse({ type: ApprovalRequestView })
  @ApiErrors('VALIDATION_ERROR', 'APPROVAL_NOT_FOUND', 'APPROVAL_EXPIRED', 'APPROVAL_ALREADY_DECIDED')
  approve(@Param('id', uuid('id')) id: string, @Body() body: ApproveDto, @CurrentUser() user: AuthUser): Promise<ApprovalRequestView> {
    return this.approvals.approve(user, id, body.reason ?? null);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequirePermission(...DECIDERS)
  @ApiAdminRoute(DECIDERS.join(' and '), DECIDE_FORBIDDEN)
  @AuditTarget({ type: 'approval', param: 'id' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'Reject a pending request with a reason; what it reserved is released' })
  @ApiOkResponse({ type: ApprovalRequestView })
  @ApiErrors('VALIDATION_ERROR', 'APPROVAL_NOT_FOUND', 'APPROVAL_EXPIRED', 'APPROVAL_ALREADY_DECIDED')
  reject(@Param('id', uuid('id')) id: string, @Body() body: RejectDto, @CurrentUser() user: AuthUser): Promise<ApprovalRequestView> {
    return this.approvals.reject(user, id, body.reason);
  }
}
