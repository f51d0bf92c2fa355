import { Body, Controller, Header, Headers, Param, Post, Put, Res, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppException } from '@mm/errors';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe, idempotencyKeyHeader } from '../common/uuid-param.pipe';
import type { IntentView } from '../intents/intent-view';
import { CorrectionsSettings } from '../corrections/corrections.settings';
import { OperatorTokens } from '../corrections/operator-tokens.service';
import { type BalanceAdjustmentResult, BalanceAdjustmentsService, type LegacyOperator } from './balance-adjustments.service';
import { BALANCE_OPERATIONS, BalanceAdjustmentDto, type BalanceOperation } from './dto/balance-adjustment.dto';
import { LegacyTransactionDto } from './dto/legacy-transaction.dto';
import { BalanceAdjustmentView, LegacyTransferView } from './dto/legacy.views';
import { LegacyTransactionsService } from './legacy-transactions.service';

const SUCCESSOR = '</v1/internal/intents>; rel="successor-version"';

/** Optional on both routes: without it a retry runs again. */
const IDEMPOTENCY_HEADER = ApiHeader({
  name: 'X-Idempotency-Key',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', example: 'transfer-2026-11-23-0001' },
  description:
    '1 to 255 printable characters; a retry with the same key and body answers the first result again. Optional, as the legacy contract had it: without it nothing protects a retried transfer from running twice.',
});

/** Deprecated endpoints (spec 2 "Legacy and administration endpoints"): functional, flagged by `Deprecation`. */
@ApiTags('legacy (deprecated)')
@Controller()
@UseGuards(ServiceKeyGuard)
export class LegacyController {
  constructor(
    private readonly transactions: LegacyTransactionsService,
    private readonly adjustments: BalanceAdjustmentsService,
    private readonly tokens: OperatorTokens,
    private readonly settings: CorrectionsSettings,
  ) {}

  /** @deprecated use POST /v1/internal/intents and the transition to SUCCEEDED */
  @Post('transactions')
  @ApiSecurity('serviceKey')
  @IDEMPOTENCY_HEADER
  @ApiOperation({ deprecated: true, summary: 'Deprecated: direct transfer; use intents (POST /v1/internal/intents)' })
  @ApiResponse({
    status: 201,
    type: LegacyTransferView,
    description:
      'the transfer executed (its intent, SUCCEEDED); a retry with the same X-Idempotency-Key answers the same 201 and body, with Idempotent-Replayed: true',
  })
  @ApiErrors(
    'VALIDATION_ERROR',
    'SAME_ACCOUNT',
    'CURRENCY_MISMATCH',
    'ACCOUNT_NOT_FOUND',
    'INSUFFICIENT_BALANCE',
    'IDEMPOTENCY_KEY_CONFLICT',
    'INVALID_SERVICE_CREDENTIALS',
  )
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

  /**
   * @deprecated freeze / unfreeze: an operator's hold (available ↔ frozen), operator token required.
   * add / subtract: 403 CORRECTION_APPROVAL_REQUIRED — corrections are made under maker-checker
   * (POST /v1/internal/corrections); only the test-funding flow (NODE_ENV=test) still applies them.
   */
  @Put('accounts/:id/balance/:operation')
  @ApiOperation({
    deprecated: true,
    summary: 'Deprecated: freeze / unfreeze holds by an operator; add / subtract only through maker-checker corrections',
    description:
      "freeze and unfreeze move money between available and frozen (the balance is unchanged) and need the operator's access token " +
      '(Authorization: Bearer, a maker role); each is journaled with the operator. add and subtract answer 403 ' +
      'CORRECTION_APPROVAL_REQUIRED: submit POST /v1/internal/corrections for another operator to approve. In NODE_ENV=test only ' +
      '(never production) add and subtract remain the test-funding flow: a signed adjustment against suspense.',
  })
  // One requirement with both schemes: the calling service's key and, for freeze / unfreeze, the operator's token.
  @ApiSecurity({ serviceKey: [], bearer: [] })
  @IDEMPOTENCY_HEADER
  @ApiParam({ name: 'operation', enum: BALANCE_OPERATIONS, description: 'any other value answers 404 NOT_FOUND' })
  @ApiOkResponse({
    type: BalanceAdjustmentView,
    description:
      'the operation applied, with the account after it; a retry with the same X-Idempotency-Key answers the same body, with Idempotent-Replayed: true',
  })
  @ApiResponse({ status: 401, description: 'OPERATOR_TOKEN_REQUIRED, TOKEN_INVALID, TOKEN_EXPIRED (freeze, unfreeze)' })
  @ApiResponse({ status: 403, description: 'CORRECTION_APPROVAL_REQUIRED (add, subtract), OPERATOR_ROLE_REQUIRED' })
  @ApiResponse({ status: 404, description: 'ACCOUNT_NOT_FOUND; NOT_FOUND for an operation not listed' })
  @ApiResponse({ status: 422, description: 'INSUFFICIENT_BALANCE, AMOUNT_OUT_OF_RANGE' })
  @Header('Deprecation', 'true')
  async balance(
    @Param('id', UuidParamPipe) id: string,
    @Param('operation') operation: string,
    @Body() dto: BalanceAdjustmentDto,
    @Headers('x-idempotency-key') key: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BalanceAdjustmentResult> {
    if (!BALANCE_OPERATIONS.includes(operation as BalanceOperation))
      throw new AppException('NOT_FOUND', `Unknown balance operation ${operation}`);
    const op = operation as BalanceOperation;
    let operator: LegacyOperator;
    if (op === 'add' || op === 'subtract') {
      if (!this.settings.testFunding) throw new AppException('CORRECTION_APPROVAL_REQUIRED');
      operator = { id: dto.createdBy ?? 'test-funding', roles: [] };
    } else {
      const identity = await this.tokens.identify(authorization);
      OperatorTokens.require(identity, this.settings.makerRoles, `${op} a balance`);
      operator = { id: identity.id, roles: identity.roles };
    }
    const result = await this.adjustments.apply(id, op, dto, operator, idempotencyKeyHeader(key));
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return result.body;
  }
}
