import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { AgentView, toAgentView } from '../agents/agents.controller';
import { ApiAdminRoute, ApiErrors } from '../config-api/api-errors';
import { uuid } from '../common/validators';
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
} from './admin.dto';

/** Staff routes: customer search, freeze / unfreeze, role changes, agent networks. */
@ApiTags('admin')
@Controller('orchestrator/admin')
export class AdminController {
  constructor(
    private readonly customers: CustomersService,
    private readonly users: AdminUsersService,
    private readonly organisations: OrganisationsService,
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
  @HttpCode(200)
  @RequirePermission('customers.freeze')
  @ApiAdminRoute('customers.freeze')
  @ApiParam({ name: 'customerId', format: 'uuid' })
  @ApiOperation({ summary: 'Lifts a freeze. Idempotent; audited with the reason.' })
  @ApiOkResponse({ type: CustomerView })
  @ApiErrors('VALIDATION_ERROR', 'CUSTOMER_NOT_FOUND', 'CUSTOMER_CLOSED', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  async unfreeze(
    @Param('customerId', uuid('customerId')) customerId: string,
    @Body() body: StatusChangeDto,
    @CurrentUser() user: AuthUser,
  ): Promise<CustomerView> {
    return toCustomerView(await this.users.unfreeze(customerId.toLowerCase(), body.reason, user.userId));
  }

  @Put('users/:userId/role')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOperation({
    summary:
      "Changes a user's role within its family (AGENT ↔ MASTER_AGENT; SUPPORT, COMPLIANCE, ADMIN). The user's sessions end: the next sign-in carries the new role.",
  })
  @ApiOkResponse({ type: RoleChangeView })
  @ApiErrors('VALIDATION_ERROR', 'USER_NOT_FOUND', 'ROLE_CHANGE_NOT_ALLOWED')
  changeRole(
    @Param('userId', uuid('userId')) userId: string,
    @Body() body: ChangeRoleDto,
    @CurrentUser() user: AuthUser,
  ): Promise<RoleChangeView> {
    return this.users.changeRole(userId.toLowerCase(), body.role, user.userId);
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
