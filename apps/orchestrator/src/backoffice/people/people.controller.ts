import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { ApprovalRequestView } from '../../approvals/approval.views';
import { uuid } from '../../common/validators';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { AuditedRead } from '../../staff-audit/audit-metadata';
import { FreezePersonDto, PeopleSearchQuery, PersonActionReasonDto } from './people.dto';
import { PeopleSearchService } from './people-search.service';
import { Person360Service } from './person-360.service';
import { PersonActionsService } from './person-actions.service';
import { Person360View, PersonPageView, PersonSummaryView, SessionsRevokedView } from './person.views';

const ApiSubmitted = () =>
  applyDecorators(
    ApiResponse({ status: 202, type: ApprovalRequestView, description: 'asked: the request waits for another staff member (PENDING)' }),
    ApiResponse({
      status: 200,
      type: ApprovalRequestView,
      description: 'decided at once: the action is configured for one pair of eyes (EXECUTED, or FAILED with the reason)',
    }),
  );

/** 202 while the request waits for a checker, 200 once the engine has decided it (one-person actions). */
function submitted(reply: FastifyReply, request: ApprovalRequestView): ApprovalRequestView {
  reply.status(request.status === 'PENDING' ? 202 : 200);
  return request;
}

/**
 * People for staff: one search over customers, merchants, agents and (for those who manage users)
 * staff, the person 360 view, and what staff do to a person (freeze, unfreeze on four eyes, end
 * sessions; on four eyes, reset a staff member's second factor, disable or enable a staff member). Every read of a person is recorded in the staff audit trail.
 */
@ApiTags('back office: people')
@Controller('backoffice/people')
export class PeopleController {
  constructor(
    private readonly search: PeopleSearchService,
    private readonly view: Person360Service,
    private readonly actions: PersonActionsService,
  ) {}

  @Get()
  @RequirePermission('customers.read')
  @ApiAdminRoute('customers.read')
  @AuditedRead({ type: 'person', query: 'q' })
  @ApiOperation({
    summary:
      'Finds people by phone (exact or prefix), name prefix, agent code or any id (user, customer, staff, merchant, agent, wallet, ledger account), newest first',
    description:
      'Customers, merchants, agents and staff (kind STAFF) in one list. A wallet or account id the orchestrator does not hold is looked up at the ledger, which names its owner.',
  })
  @ApiOkResponse({ type: PersonPageView })
  @ApiErrors('VALIDATION_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  find(@Query() query: PeopleSearchQuery, @CurrentUser() user: AuthUser): Promise<PersonPageView> {
    return this.search.search(query.q, query.limit ?? 20, user, query.cursor);
  }

  @Get(':userId')
  @RequirePermission('customers.read')
  @ApiAdminRoute('customers.read')
  @AuditedRead({ type: 'person', param: 'userId' })
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      'The person 360 view: identity, role, tier, status and freeze, balances, holds, limit usage, recent operations, sessions and second factor, connections (merchants), float and commission (agents)',
    description:
      'Each part read from another service is read apart: one that cannot be read says why in its own `unavailable` field (a stable error code), and the rest of the view is answered.',
  })
  @ApiOkResponse({ type: Person360View })
  @ApiErrors('VALIDATION_ERROR', 'PERSON_NOT_FOUND')
  get(@Param('userId', uuid('userId')) userId: string, @CurrentUser() user: AuthUser): Promise<Person360View> {
    return this.view.view(userId.toLowerCase(), user);
  }

  @Post(':userId/freeze')
  @HttpCode(200)
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary: 'Freezes a customer, merchant or agent at once, with a reason code: no sign-in (sessions end), no money movement. Idempotent.',
  })
  @ApiOkResponse({ type: PersonSummaryView })
  @ApiErrors('VALIDATION_ERROR', 'PERSON_NOT_FOUND', 'PERSON_NOT_FREEZABLE', 'CUSTOMER_CLOSED', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  freeze(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: FreezePersonDto,
    @CurrentUser() user: AuthUser,
  ): Promise<PersonSummaryView> {
    return this.actions.freeze(userId.toLowerCase(), body, user);
  }

  @Post(':userId/unfreeze')
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Asks for an unfreeze (maker-checker CUSTOMER_UNFREEZE): another staff member holding customers.freeze approves it at /api/backoffice/approvals/{id}/approve',
  })
  @ApiSubmitted()
  @ApiErrors(
    'VALIDATION_ERROR',
    'PERSON_NOT_FOUND',
    'PERSON_NOT_FREEZABLE',
    'PERSON_NOT_FROZEN',
    'CUSTOMER_CLOSED',
    'APPROVAL_DUPLICATE_PENDING',
  )
  async unfreeze(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: PersonActionReasonDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    return submitted(reply, await this.actions.requestUnfreeze(userId.toLowerCase(), body.reason, user));
  }

  @Post(':userId/sessions/revoke')
  @HttpCode(200)
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Ends every session of the person at once (access and refresh tokens stop working); the person can sign in again. Auth keeps the reason with the ended sessions.',
  })
  @ApiOkResponse({ type: SessionsRevokedView })
  @ApiErrors('VALIDATION_ERROR', 'PERSON_NOT_FOUND', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  revokeSessions(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: PersonActionReasonDto,
    @CurrentUser() user: AuthUser,
  ): Promise<SessionsRevokedView> {
    return this.actions.revokeSessions(userId.toLowerCase(), body.reason, user);
  }

  @Post(':userId/second-factor/reset')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      "Asks for the reset of a staff member's second factor (maker-checker STAFF_TOTP_RESET): once approved, their sessions end and they enrol again at the next sign-in",
  })
  @ApiSubmitted()
  @ApiErrors('VALIDATION_ERROR', 'PERSON_NOT_FOUND', 'SECOND_FACTOR_STAFF_ONLY', 'OWN_ACCOUNT_ACTION', 'APPROVAL_DUPLICATE_PENDING')
  async resetSecondFactor(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: PersonActionReasonDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    return submitted(reply, await this.actions.requestSecondFactorReset(userId.toLowerCase(), body.reason, user));
  }

  @Post(':userId/disable')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      "Asks for the end of a staff member's access (maker-checker STAFF_DISABLE): once another administrator approves, auth disables the user and ends every session; sign-in answers ACCOUNT_DISABLED",
  })
  @ApiSubmitted()
  @ApiErrors(
    'VALIDATION_ERROR',
    'PERSON_NOT_FOUND',
    'PERSON_NOT_STAFF',
    'STAFF_ALREADY_DISABLED',
    'OWN_ACCOUNT_ACTION',
    'APPROVAL_DUPLICATE_PENDING',
    'UPSTREAM_UNAVAILABLE',
  )
  async disable(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: PersonActionReasonDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    return submitted(reply, await this.actions.requestStaffAccess(userId.toLowerCase(), 'STAFF_DISABLE', body.reason, user));
  }

  @Post(':userId/enable')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Asks for a disabled staff member to be allowed to sign in again (maker-checker STAFF_ENABLE): another administrator approves it',
  })
  @ApiSubmitted()
  @ApiErrors(
    'VALIDATION_ERROR',
    'PERSON_NOT_FOUND',
    'PERSON_NOT_STAFF',
    'STAFF_NOT_DISABLED',
    'OWN_ACCOUNT_ACTION',
    'APPROVAL_DUPLICATE_PENDING',
    'UPSTREAM_UNAVAILABLE',
  )
  async enable(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: PersonActionReasonDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApprovalRequestView> {
    return submitted(reply, await this.actions.requestStaffAccess(userId.toLowerCase(), 'STAFF_ENABLE', body.reason, user));
  }
}
