import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { BalanceView, CustomerView, toCustomerView } from '../customers/customer.views';
import { WalletBalances } from '../customers/wallet-balances.service';
import { type Agent, AgentsService } from './agents.service';

export class AgentView {
  @ApiProperty({ format: 'uuid', example: 'da8219c3-3e10-42d2-a03a-e9affb93aae3' })
  agentId: string;

  @ApiProperty({ example: 'AG00012345' })
  agentCode: string;

  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    example: '6c2039c9-dfbc-42ef-869c-420254609afd',
    description: 'the agent id of its master agent; null when not affiliated',
  })
  masterAgentId: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    example: null,
    description: "a master agent's organisation (corporate wallet)",
  })
  organisationId: string | null;

  @ApiProperty({ type: CustomerView })
  customer: CustomerView;
}

export class AgentSelfView extends AgentView {
  @ApiProperty({ type: [BalanceView], description: 'float accounts (accountType agent), one per currency' })
  float: BalanceView[];

  @ApiProperty({ type: [BalanceView], description: 'commission accounts (accountType agent_commission), one per currency' })
  commission: BalanceView[];
}

export class AgentPageView {
  @ApiProperty({ type: [AgentView] })
  items: AgentView[];

  @ApiProperty({
    nullable: true,
    type: String,
    example: 'WyIyMDI2LTA5LTE4VDA5OjEyOjQ1LjEyMFoiLCJkYTgyMTljMy0zZTEwLTQyZDItYTAzYS1lOWFmZmI5M2FhZTMiXQ',
    description: 'pass as `cursor` for the next page; null on the last page',
  })
  nextCursor: string | null;
}

export class PageQuery {
  @ApiProperty({ required: false, minimum: 1, maximum: 100, default: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiProperty({
    required: false,
    description: 'nextCursor of the previous page',
    maxLength: 200,
    example: 'WyIyMDI2LTExLTIyVDEwOjAwOjAwLjAwMFoiLCI3YjBlNGY5YS0xYjJkLTRlM2YtOGE1Yi02YzdkOGU5ZjBhMWIiXQ',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export function toAgentView(agent: Agent): AgentView {
  return {
    agentId: agent.id,
    agentCode: agent.agentCode,
    masterAgentId: agent.masterAgentId,
    organisationId: agent.organisationId,
    customer: toCustomerView(agent.customer),
  };
}

/** The agent side: float and commission balances; a master agent's network. */
@ApiTags('agents')
@Controller('orchestrator/agents')
export class AgentsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly balances: WalletBalances,
  ) {}

  @Get('me')
  @RequirePermission('agents.read')
  @ApiAdminRoute('agents.read')
  @ApiOperation({ summary: "The signed-in agent's record, float balances and commission balances" })
  @ApiOkResponse({ type: AgentSelfView })
  @ApiErrors('AGENT_NOT_FOUND', 'UPSTREAM_UNAVAILABLE')
  async me(@CurrentUser() user: AuthUser): Promise<AgentSelfView> {
    const agent = await this.agents.getByUserId(user.userId);
    const { balances } = await this.balances.of(agent.customer.walletId);
    return {
      ...toAgentView(agent),
      float: balances.filter((b) => b.accountType === 'agent'),
      commission: balances.filter((b) => b.accountType === 'agent_commission'),
    };
  }

  @Get('me/agents')
  @RequirePermission('agents.network')
  @ApiAdminRoute('agents.network')
  @ApiOperation({ summary: 'A master agent: the agents affiliated to it, oldest first, paginated' })
  @ApiOkResponse({ type: AgentPageView })
  @ApiErrors('VALIDATION_ERROR', 'AGENT_NOT_FOUND')
  async network(@CurrentUser() user: AuthUser, @Query() query: PageQuery): Promise<AgentPageView> {
    const master = await this.agents.getByUserId(user.userId);
    const page = await this.agents.listAffiliated(master.id, query.limit ?? 50, query.cursor);
    return { items: page.items.map(toAgentView), nextCursor: page.nextCursor };
  }
}
