import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppException } from '@mm/errors';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { AgentView, toAgentView } from '../agents/agents.controller';
import { ApprovalRequestView } from '../../approvals/approval.views';
import { ApprovalsService } from '../../approvals/approvals.service';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { uuid } from '../../common/validators';
import { CustomerPageView, CustomerView, toCustomerView } from '../customers/customer.views';
import { CustomersService } from '../customers/customers.service';
import { AdminUsersService } from './admin-users.service';
import { OrganisationsService } from '../agents/organisations.service';
import {
  ChangeRoleDto,
  CreateOrganisationDto,
  CustomerSearchQuery,
  OrganisationView,
  RoleChangeView,
  SetMasterAgentDto,
  StatusChangeDto,
  UnfreezeDto,
} from './admin.dto';

/**
 * Staff routes: customer search, freeze / unfreeze, role changes, agent networks. Unfreezes and staff
 * role changes are asked of the maker-checker engine (the back office's people routes do the same).
 */
@ApiTags('admin')
@Controller('orchestrator/admin')
export class AdminController {
  constructor(
    private readonly customers: CustomersService,
    private readonly users: AdminUsersService,
    private readonly organisations: OrganisationsService,
    private readonly approvals: ApprovalsService,
  ) {}

  @Get('customers')
  @RequirePermission('customers.read')
  @ApiAdminRoute('customers.read')
  @ApiOperation({
    summary: 'Customers, newest first: exact phone, or a prefix of phone or name; status and role filters; cursor pagination',
  })
  @ApiOkResponse({ type: CustomerPageView })
  @ApiErrors('VALIDATION_ERROR')
  async search(@Query() query: CustomerSearchQuery): Promise<CustomerPageView> {
    const page = await this.customers.search({ ...query, limit: query.limit ?? 50 });
    return { items: page.items.map(toCustomerView), nextCursor: page.nextCursor };
  }

  @Get('customers/:customerId')
  @RequirePermission('customers.read')
  @ApiAdminRoute('customers.read')
  @ApiParam({ name: 'customerId', format: 'uuid' })
  @ApiOperation({ summary: 'One customer' })
  @ApiOkResponse({ type: CustomerView })
  @ApiErrors('VALIDATION_ERROR', 'CUSTOMER_NOT_FOUND')
  async get(@Param('customerId', uuid('customerId')) customerId: string): Promise<CustomerView> {
    return toCustomerView(await this.customers.getById(customerId.toLowerCase()));
  }

  @Post('customers/:customerId/freeze')
  @HttpCode(200)
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'customerId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Freezes a customer: no sign-in (sessions end at once; login answers ACCOUNT_DISABLED) and no money movement (the risk rules answer RISK_REJECTED with X-Risk-Reason ACCOUNT_FROZEN for the initiator, COUNTERPARTY_UNAVAILABLE for the other party; a withdrawal code answers CUSTOMER_FROZEN). Idempotent; audited with the reason.',
  })
  @ApiOkResponse({ type: CustomerView })
  @ApiErrors('VALIDATION_ERROR', 'CUSTOMER_NOT_FOUND', 'CUSTOMER_CLOSED', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  async freeze(
    @Param('customerId', uuid('customerId')) customerId: string,
    @Body() body: StatusChangeDto,
    @CurrentUser() user: AuthUser,
  ): Promise<CustomerView> {
    return toCustomerView(await this.users.freeze(customerId.toLowerCase(), body.reason, user.userId));
  }

  @Post('customers/:customerId/unfreeze')
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'customerId', format: 'uuid' })
  @ApiOperation({
    summary:
      'Asks for the lifting of a freeze through the maker-checker engine (CUSTOMER_UNFREEZE), as POST /api/backoffice/people/{userId}/unfreeze does: 202 with the request while it waits for another staff member; 200 with the customer when the action is configured for one pair of eyes (APPROVALS_ONE_PERSON_ACTIONS) and was carried out at once.',
  })
  @ApiResponse({ status: 202, type: ApprovalRequestView, description: 'the request, PENDING: another staff member approves it' })
  @ApiOkResponse({ type: CustomerView, description: 'unfrozen at once (one-person configuration); idempotent' })
  @ApiErrors(
    'VALIDATION_ERROR',
    'CUSTOMER_NOT_FOUND',
    'CUSTOMER_CLOSED',
    'PERSON_NOT_FROZEN',
    'APPROVAL_DUPLICATE_PENDING',
    'UPSTREAM_UNAVAILABLE',
    'UPSTREAM_TIMEOUT',
  )
  async unfreeze(
    @Param('customerId', uuid('customerId')) customerId: string,
    @Body() body: UnfreezeDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CustomerView | ApprovalRequestView> {
    reply.status(200);
    const customer = await this.customers.getById(customerId.toLowerCase());
    if (customer.status === 'closed') throw new AppException('CUSTOMER_CLOSED');
    // Unfreezing an active customer stays the no-op it always was (no request to approve).
    if (customer.status === 'active') return toCustomerView(customer);
    const request = await this.approvals.submit(user, {
      action: 'CUSTOMER_UNFREEZE',
      payload: { userId: customer.userId, reason: body.reason },
      reason: body.reason,
    });
    if (request.status === 'PENDING') {
      reply.status(202);
      return request;
    }
    return toCustomerView(await this.customers.getById(customer.id));
  }

  @Put('users/:userId/role')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      "Changes a user's role within its family (AGENT ↔ MASTER_AGENT; SUPPORT, COMPLIANCE, ADMIN, AUDITOR). The user's sessions end: the next sign-in carries the new role.",
  })
  @ApiOkResponse({
    type: RoleChangeView,
    description: 'changed (agents; staff when STAFF_ROLE_CHANGE is configured for one pair of eyes), or no change needed',
  })
  @ApiResponse({
    status: 202,
    type: ApprovalRequestView,
    description:
      'a staff role change asked through the maker-checker engine (STAFF_ROLE_CHANGE): another administrator, not the person concerned, approves it',
  })
  @ApiErrors('VALIDATION_ERROR', 'USER_NOT_FOUND', 'ROLE_CHANGE_NOT_ALLOWED', 'APPROVAL_DUPLICATE_PENDING')
  async changeRole(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: ChangeRoleDto,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RoleChangeView | ApprovalRequestView> {
    const id = userId.toLowerCase();
    const plan = await this.users.planRoleChange(id, body.role, user.userId);
    // Agent ↔ master agent is an agent network's organisation: carried out at once, as always.
    // Among staff roles a change moves permissions over people's data and money: four eyes.
    if (!plan.staff || plan.from === body.role) return this.users.changeRole(id, body.role, user.userId);
    const request = await this.approvals.submit(user, {
      action: 'STAFF_ROLE_CHANGE',
      payload: { userId: id, role: body.role },
      reason: `Role change to ${body.role}`,
    });
    if (request.status === 'PENDING') {
      reply.status(202);
      return request;
    }
    return request.result as unknown as RoleChangeView;
  }

  @Put('agents/:agentId/master')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiParam({ name: 'agentId', format: 'uuid' })
  @ApiOperation({ summary: 'Affiliates an agent to a master agent (by its code), or detaches it (null)' })
  @ApiOkResponse({ type: AgentView })
  @ApiErrors('VALIDATION_ERROR', 'AGENT_NOT_FOUND', 'NOT_A_MASTER_AGENT')
  async setMaster(@Param('agentId', uuid('agentId')) agentId: string, @Body() body: SetMasterAgentDto): Promise<AgentView> {
    return toAgentView(await this.users.setMasterAgent(agentId.toLowerCase(), body.masterAgentCode));
  }

  @Post('organisations')
  @HttpCode(201)
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiOperation({ summary: "Creates a master agent's organisation with its corporate wallet (XAF and XOF accounts)" })
  @ApiCreatedResponse({ type: OrganisationView })
  @ApiErrors('VALIDATION_ERROR', 'AGENT_NOT_FOUND', 'NOT_A_MASTER_AGENT', 'UPSTREAM_UNAVAILABLE')
  createOrganisation(@Body() body: CreateOrganisationDto): Promise<OrganisationView> {
    return this.organisations.create(body.name, body.masterAgentCode);
  }
}
