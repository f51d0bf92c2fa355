import { Body, Controller, Header, Headers, Param, Post, Put, Res, UseGuards } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppException } from '@mm/errors';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe, idempotencyKeyHeader } from '../common/uuid-param.pipe';
import type { IntentView } from '../intents/intent-view';
import { type BalanceAdjustmentResult, BalanceAdjustmentsService } from './balance-adjustments.service';
import { BALANCE_OPERATIONS, BalanceAdjustmentDto, type BalanceOperation } from './dto/balance-adjustment.dto';
import { LegacyTransactionDto } from './dto/legacy-transaction.dto';
import { LegacyTransactionsService } from './legacy-transactions.service';

const SUCCESSOR = '</v1/internal/intents>; rel="successor-version"';

/** Deprecated endpoints (spec 2 "Legacy and administration endpoints"): functional, flagged by `Deprecation`. */
@Controller()
@UseGuards(ServiceKeyGuard)
export class LegacyController {
  constructor(
    private readonly transactions: LegacyTransactionsService,
    private readonly adjustments: BalanceAdjustmentsService,
  ) {}

  /** @deprecated use POST /v1/internal/intents and the transition to SUCCEEDED */
  @Post('transactions')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: direct transfer; use intents (POST /v1/internal/intents)' })
  @Header('Deprecation', 'true')
  @Header('Link', SUCCESSOR)
  async transfer(
    @Body() dto: LegacyTransactionDto,
    @Headers('x-idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntentView> {
    const result = await this.transactions.transfer(dto, idempotencyKeyHeader(key));
    reply.status(result.status);
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return result.body;
  }

  /** @deprecated add / subtract write a signed adjustment against suspense; freeze / unfreeze move available ↔ frozen */
  @Put('accounts/:id/balance/:operation')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: balance adjustment, always with a signed entry against suspense' })
  @Header('Deprecation', 'true')
  async balance(
    @Param('id', UuidParamPipe) id: string,
    @Param('operation') operation: string,
    @Body() dto: BalanceAdjustmentDto,
    @Headers('x-idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BalanceAdjustmentResult> {
    if (!BALANCE_OPERATIONS.includes(operation as BalanceOperation))
      throw new AppException('NOT_FOUND', `Unknown balance operation ${operation}`);
    const result = await this.adjustments.apply(id, operation as BalanceOperation, dto, idempotencyKeyHeader(key));
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return result.body;
  }
}
