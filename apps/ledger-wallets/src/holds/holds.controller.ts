import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { CorrectionsSettings } from '../corrections/corrections.settings';
import { OperatorTokens } from '../corrections/operator-tokens.service';
import { ListHoldsQuery, PlaceHoldDto, ReleaseHoldDto } from './dto/hold.dto';
import { HoldViewDto } from './dto/hold.views';
import type { HoldView } from './hold-view';
import { HoldsService } from './holds.service';

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

/**
 * Named holds (docs/ledger-corrections.md, "Holds"). Every call carries the calling service's key and
 * the acting operator's access token, as corrections do: placing and releasing need a maker role,
 * reading any role that may read corrections.
 */
@ApiTags('holds')
@ApiSecurity({ serviceKey: [], bearer: [] })
@ApiResponse({ status: 401, description: 'OPERATOR_TOKEN_REQUIRED, TOKEN_INVALID, TOKEN_EXPIRED or INVALID_SERVICE_CREDENTIALS', ...ERROR })
@ApiResponse({ status: 403, description: 'OPERATOR_ROLE_REQUIRED', ...ERROR })
@Controller('internal/holds')
@UseGuards(ServiceKeyGuard)
export class HoldsController {
  constructor(
    private readonly tokens: OperatorTokens,
    private readonly settings: CorrectionsSettings,
    private readonly holds: HoldsService,
  ) {}

  /**
   * Readers of holds: whoever reads corrections, and SUPPORT too (read-only): a support agent
   * answering "why can I not spend my money?" sees the holds on the person's account (the
   * orchestrator's person view relays the agent's own token, so the ledger still knows who read).
   */
  private async reader(authorization: string | undefined): Promise<void> {
    const operator = await this.tokens.identify(authorization);
    OperatorTokens.require(operator, [...this.settings.readerRoles, 'SUPPORT'], 'read holds');
  }

  @Post()
  @ApiOperation({ summary: 'Place a hold: the amount moves from available to frozen (the balance is unchanged)' })
  @ApiResponse({ status: 201, type: HoldViewDto, description: 'the hold, ACTIVE' })
  @ApiResponse({ status: 200, type: HoldViewDto, description: 'the same key and body again: the stored hold (Idempotent-Replayed: true)' })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR', ...ERROR })
  @ApiResponse({ status: 404, description: 'ACCOUNT_NOT_FOUND', ...ERROR })
  @ApiResponse({ status: 409, description: 'CONCURRENCY_CONFLICT', ...ERROR })
  @ApiResponse({ status: 422, description: 'INSUFFICIENT_BALANCE (available below the amount), IDEMPOTENCY_KEY_CONFLICT', ...ERROR })
  async place(
    @Body() dto: PlaceHoldDto,
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<HoldView> {
    const { view, replayed } = await this.holds.place(dto, await this.tokens.identify(authorization));
    reply.status(replayed ? 200 : 201);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return view;
  }

  @Get()
  @ApiOperation({ summary: 'Holds, newest first (e.g. ?accountId=…&status=ACTIVE)' })
  @ApiOkResponse({ type: [HoldViewDto], description: 'at most `limit` holds; no cursor' })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR', ...ERROR })
  async list(@Query() query: ListHoldsQuery, @Headers('authorization') authorization: string | undefined): Promise<HoldView[]> {
    await this.reader(authorization);
    return this.holds.list(query);
  }

  @Get('by-key/:key')
  @ApiSecurity('serviceKey')
  @ApiOperation({
    summary:
      'The maker-checker engine: the hold placed, or released, under an idempotency key (its approval request id), without an operator token',
    description: 'Read by the engine to settle an approval whose execution was cut, when no person is acting.',
  })
  @ApiOkResponse({ type: HoldViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (key not a UUID)', ...ERROR })
  @ApiResponse({ status: 404, description: 'HOLD_NOT_FOUND (nothing was placed or released under this key)', ...ERROR })
  byKey(@Param('key', UuidParamPipe) key: string): Promise<HoldView> {
    return this.holds.byKey(key);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One hold' })
  @ApiOkResponse({ type: HoldViewDto })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR (id not a UUID)', ...ERROR })
  @ApiResponse({ status: 404, description: 'HOLD_NOT_FOUND', ...ERROR })
  async get(@Param('id', UuidParamPipe) id: string, @Headers('authorization') authorization: string | undefined): Promise<HoldView> {
    await this.reader(authorization);
    return this.holds.get(id);
  }

  @Post(':id/release')
  @HttpCode(200)
  @ApiOperation({ summary: 'Release a hold: its amount moves from frozen back to available' })
  @ApiOkResponse({ type: HoldViewDto, description: 'the hold, RELEASED (also for the same idempotency key again)' })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR', ...ERROR })
  @ApiResponse({ status: 404, description: 'HOLD_NOT_FOUND', ...ERROR })
  @ApiResponse({ status: 409, description: 'HOLD_ALREADY_RELEASED (under another key), CONCURRENCY_CONFLICT', ...ERROR })
  @ApiResponse({ status: 422, description: 'INSUFFICIENT_BALANCE (the frozen balance no longer holds it)', ...ERROR })
  async release(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: ReleaseHoldDto,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<HoldView> {
    return this.holds.release(id, dto, await this.tokens.identify(authorization));
  }
}
