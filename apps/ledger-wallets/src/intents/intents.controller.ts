import { Body, Controller, Get, Headers, type OnModuleInit, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { ApiBody, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe, idempotencyKeyHeader } from '../common/uuid-param.pipe';
import type { IdempotentResponse } from '../idempotency/idempotency.service';
import { BodyValidator } from './dto/compiled-validation';
import { CreateIntentDto } from './dto/create-intent.dto';
import { TransitionIntentDto } from './dto/transition-intent.dto';
import { IntentTransitionService } from './intent-transition.service';
import { IntentEventViewDto, IntentViewDto } from './dto/intent.views';
import type { IntentEventView, IntentView } from './intent-view';
import { IntentsService } from './intents.service';
import { registerStageTiming, timeRequest } from '../common/stage-timing';

function answer<T>(reply: FastifyReply, result: IdempotentResponse<T>): T {
  reply.status(result.status);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return result.body;
}

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

@ApiTags('intents')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS')
@Controller('internal/intents')
@UseGuards(ServiceKeyGuard)
export class IntentsController implements OnModuleInit {
  /** The transition's body rules, compiled once (the hot route: see compiled-validation.ts). */
  private readonly transitionBody: BodyValidator<TransitionIntentDto>;

  constructor(
    private readonly intents: IntentsService,
    private readonly transitions: IntentTransitionService,
    private readonly adapterHost: HttpAdapterHost,
    appConfig: ApplicationConfig,
  ) {
    this.transitionBody = new BodyValidator(TransitionIntentDto, () => appConfig.getGlobalPipes());
  }

  /** Runs after the platform registered its hooks: the stage timings are appended to its Server-Timing. */
  onModuleInit(): void {
    registerStageTiming(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }

  /** 201 with the intent; the same idempotencyKey and body again answers the same 201 (header Idempotent-Replayed). */
  @Post()
  @ApiOperation({
    summary:
      'Creates an intent and freezes amount + fee. actor.id is the initiator (auth user id, whose PIN proof PIN_VERIFIED needs); with requiresOtp, otpUserId names the user whose OTP proof OTP_VERIFIED needs.',
  })
  @ApiCreatedResponse({
    type: IntentViewDto,
    description:
      'the intent, CREATED, with amount + fee frozen on the source; a replay of the same key and body answers the same (header Idempotent-Replayed: true)',
  })
  @ApiResponse({
    status: 400,
    description:
      'VALIDATION_ERROR, IDEMPOTENCY_KEY_MISSING, SAME_ACCOUNT, CURRENCY_MISMATCH, CONSENT_OTP_USER_REQUIRED, INTENT_EXPIRED (expiresAt already past), INTENT_CREATE_DEADLINE_PASSED (createBy passed before this intent was created; a replay of a creation made in time still answers its 201), ACCOUNT_NOT_ALLOWED (an account whose wallet is not ACTIVE)',
    ...ERROR,
  })
  @ApiResponse({ status: 404, description: 'ACCOUNT_NOT_FOUND: the source or the destination account does not exist', ...ERROR })
  @ApiResponse({
    status: 422,
    description:
      "INSUFFICIENT_BALANCE, ACCOUNT_TYPE_NOT_ALLOWED, IDEMPOTENCY_KEY_CONFLICT, LIMIT_BALANCE_CAP_EXCEEDED (the destination's balance + amount already above payeeBalanceCap; nothing held)",
    ...ERROR,
  })
  async create(@Body() dto: CreateIntentDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<IntentView> {
    return answer(reply, await this.intents.create(dto));
  }

  @Get(':id')
  @ApiOkResponse({ type: IntentViewDto })
  @ApiErrors('VALIDATION_ERROR', 'INTENT_NOT_FOUND')
  get(@Param('id', UuidParamPipe) id: string): Promise<IntentView> {
    return this.intents.get(id);
  }

  @Get(':id/events')
  @ApiOkResponse({ type: [IntentEventViewDto], description: "the intent's journal, oldest first (the creation row first)" })
  @ApiErrors('VALIDATION_ERROR', 'INTENT_NOT_FOUND')
  events(@Param('id', UuidParamPipe) id: string): Promise<IntentEventView[]> {
    return this.intents.events(id);
  }

  /** X-Idempotency-Key is optional (recommended on SUCCEEDED); X-Correlation-Id lands in the transaction metadata. */
  @Post(':id/transition')
  @ApiOperation({
    summary:
      'Moves the intent. OTP_VERIFIED and PIN_VERIFIED need consentProof (issued by auth verify-otp / check-pin with this intentId): single use, bound to the intent, the step and the user.',
  })
  @ApiOkResponse({
    type: IntentViewDto,
    description:
      'the intent after the move (with transactionId and referenceId on SUCCEEDED); a replay of the same X-Idempotency-Key answers the stored copy (header Idempotent-Replayed: true)',
  })
  @ApiResponse({
    status: 400,
    description:
      'VALIDATION_ERROR, INVALID_INTENT_TRANSITION, INTENT_EXPIRED (also when the deadline passed while the confirm waited for its locks), EXECUTION_CONTEXT_REQUIRED, EXECUTION_CONTEXT_MISMATCH, ACCOUNT_NOT_ALLOWED (an account of the confirm in a wallet that is not ACTIVE)',
    ...ERROR,
  })
  @ApiResponse({
    status: 403,
    description:
      'CONSENT_PROOF_REQUIRED, CONSENT_PROOF_INVALID, CONSENT_PROOF_EXPIRED, CONSENT_PROOF_MISMATCH, CONSENT_PROOF_REPLAYED (the intent does not move)',
    ...ERROR,
  })
  @ApiResponse({ status: 404, description: 'INTENT_NOT_FOUND', ...ERROR })
  @ApiResponse({ status: 409, description: 'CONCURRENCY_CONFLICT, IDEMPOTENCY_KEY_IN_PROGRESS', ...ERROR })
  @ApiResponse({
    status: 422,
    description:
      'INSUFFICIENT_BALANCE, LIMIT_BALANCE_CAP_EXCEEDED (executionContext.payeeBalanceCap: the credit would take the destination above it; nothing moved, the intent stays PIN_VERIFIED), IDEMPOTENCY_KEY_CONFLICT, COMMISSION_OUT_OF_RANGE (a commission above the amount or LEDGER_COMMISSION_MAX_PER_OPERATION), execution rule codes',
    ...ERROR,
  })
  @ApiResponse({ status: 502, description: "UPSTREAM_UNAVAILABLE: auth's key set could not be fetched (nothing moved)", ...ERROR })
  @ApiBody({ type: TransitionIntentDto })
  @ApiHeader({
    name: 'X-Idempotency-Key',
    required: false,
    description: 'optional (recommended on SUCCEEDED): a retry with the same key answers the stored result; empty means absent',
    schema: { type: 'string', maxLength: 255, pattern: '^[\\x21-\\x7e]*$', example: 'confirm-3f1e2d4c' },
  })
  async transition(
    @Param('id', UuidParamPipe) id: string,
    // Typed `unknown` so the global ValidationPipe leaves it alone: `transitionBody` applies the
    // same TransitionIntentDto rules, compiled (a refusal still comes from that pipe, unchanged).
    @Body() body: unknown,
    @Headers('x-idempotency-key') idempotencyKey: string | undefined,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntentView> {
    const timer = timeRequest(req, reply);
    const dto = await this.transitionBody.parse(body);
    timer.lap('validate');
    return answer(reply, await this.transitions.transition(id, dto, idempotencyKeyHeader(idempotencyKey), timer));
  }
}
