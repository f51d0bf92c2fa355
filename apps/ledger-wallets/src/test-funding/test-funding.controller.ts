import { Body, Controller, Header, Headers, Param, Put, Res, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppException } from '@mm/errors';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe, idempotencyKeyHeader } from '../common/uuid-param.pipe';
import { CorrectionsSettings } from '../corrections/corrections.settings';
import { TEST_FUNDING_OPERATIONS, TestFundingDto, type TestFundingOperation } from './test-funding.dto';
import { type TestFundingResult, TestFundingService } from './test-funding.service';
import { TestFundingView } from './test-funding.views';

/**
 * Money for tests, benches and the demo (docs/ledger-corrections.md "Test funding"). Registered
 * everywhere so that the OpenAPI document is the same in every environment, but it answers 403
 * CORRECTION_APPROVAL_REQUIRED unless test funding is on, which production never allows.
 */
@ApiTags('test funding')
@Controller()
@UseGuards(ServiceKeyGuard)
export class TestFundingController {
  constructor(
    private readonly funding: TestFundingService,
    private readonly settings: CorrectionsSettings,
  ) {}

  @Put('accounts/:id/balance/:operation')
  @ApiOperation({
    deprecated: true,
    summary: 'Test funding only: a signed adjustment against suspense (NODE_ENV=test); elsewhere 403, use maker-checker corrections',
    description:
      "add credits the account from its currency's suspense account, subtract debits it back, each a balanced ADJUSTMENT journaled in " +
      'operator_actions. Only when test funding is on (NODE_ENV=test, or development with LEDGER_TEST_FUNDING_ENABLED=true; never ' +
      'production); otherwise 403 CORRECTION_APPROVAL_REQUIRED: submit POST /v1/internal/corrections for another operator to approve.',
  })
  @ApiSecurity('serviceKey')
  @ApiHeader({
    name: 'X-Idempotency-Key',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', example: 'fund-2026-11-23-0001' },
    description: '1 to 255 printable characters; a retry with the same key and body answers the first result again',
  })
  @ApiParam({ name: 'operation', enum: TEST_FUNDING_OPERATIONS, description: 'any other value answers 404 NOT_FOUND' })
  @ApiOkResponse({
    type: TestFundingView,
    description:
      'the adjustment applied, with the account after it; a retry with the same X-Idempotency-Key answers the same body, with Idempotent-Replayed: true',
  })
  @ApiResponse({ status: 403, description: 'CORRECTION_APPROVAL_REQUIRED (test funding off)' })
  @ApiResponse({ status: 404, description: 'ACCOUNT_NOT_FOUND; NOT_FOUND for an operation not listed' })
  @ApiResponse({ status: 422, description: 'INSUFFICIENT_BALANCE, AMOUNT_OUT_OF_RANGE' })
  @Header('Deprecation', 'true')
  async apply(
    @Param('id', UuidParamPipe) id: string,
    @Param('operation') operation: string,
    @Body() dto: TestFundingDto,
    @Headers('x-idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TestFundingResult> {
    if (!TEST_FUNDING_OPERATIONS.includes(operation as TestFundingOperation))
      throw new AppException('NOT_FOUND', `Unknown balance operation ${operation}`);
    if (!this.settings.testFunding) throw new AppException('CORRECTION_APPROVAL_REQUIRED');
    const result = await this.funding.apply(id, operation as TestFundingOperation, dto, idempotencyKeyHeader(key));
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return result.body;
  }
}
