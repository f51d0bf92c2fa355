import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';
import { clientInfo } from './client-info';
import { CreateIntentDto } from './dto/create-intent.dto';
import { VerifyOtpDto, VerifyPinDto } from './dto/intent-steps.dto';
import { ConfirmedIntentView, CreatedIntentView, IntentStepView, IntentView, OtpSentView } from './dto/intent-views.dto';
import { IntentConfirmService } from './intent-confirm.service';
import { IntentCreateService } from './intent-create.service';
import { IntentIdPipe } from './intent-id.pipe';
import { IntentStepsService } from './intent-steps.service';

const STEP_ERRORS = [
  'INTENT_NOT_FOUND',
  'INVALID_INTENT_TRANSITION',
  'INTENT_EXPIRED',
  'VALIDATION_ERROR',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
] as const;

/**
 * The public intent routes (docs/mobile-api.md "The steps"). Who starts what (docs/mobile-api.md): a customer its TRANSFER
 * (PIN of the sender), an agent its CASH_IN and CASH_OUT (PIN of the agent; a cash-out also needs
 * the customer's consent: a withdrawal QR, or else the OTP sent to the customer). Only the
 * initiator sees and moves an intent: any other user gets 404 INTENT_NOT_FOUND.
 */
@ApiTags('intents')
@ApiBearerAuth()
@ApiHeader({ name: 'X-Device-Id', required: false, description: 'the app installation id, for the per-device velocity rule' })
@Controller('v1/intents')
@RequirePermission('transactions.create')
export class IntentsController {
  constructor(
    private readonly creation: IntentCreateService,
    private readonly steps: IntentStepsService,
    private readonly confirmation: IntentConfirmService,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Create an intent: recipient resolved, limits and risk checked, fee quoted, amount + fee held on the payer account',
    description:
      'The same idempotencyKey with the same body answers the first 201 again (header Idempotent-Replayed: true). Field faults: 400 VALIDATION_ERROR whose errors[] carries the specific code of each field.',
  })
  @ApiCreatedResponse({ type: CreatedIntentView })
  @ApiErrors(
    'VALIDATION_ERROR',
    'IDEMPOTENCY_KEY_MISSING',
    'SELF_TRANSFER',
    'RECIPIENT_NOT_FOUND',
    'RECIPIENT_REQUIRED',
    'QR_NOT_ALLOWED',
    'WITHDRAWAL_QR_INVALID',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'INTENT_TYPE_NOT_ALLOWED',
    'RISK_REJECTED',
    'QR_NOT_FOUND',
    'QR_TOKEN_LOCKED',
    'IDEMPOTENCY_KEY_CONFLICT',
    'INSUFFICIENT_BALANCE',
    'RECIPIENT_NOT_ELIGIBLE',
    'CURRENCY_NOT_HELD',
    'ORDER_NOT_PAYABLE',
    'ORDER_AMOUNT_MISMATCH',
    'WITHDRAWAL_QR_AMOUNT_MISMATCH',
    'AMOUNT_BELOW_MINIMUM',
    'AMOUNT_ABOVE_MAXIMUM',
    'LIMIT_SINGLE_OPERATION_EXCEEDED',
    'LIMIT_DAILY_EXCEEDED',
    'LIMIT_MONTHLY_EXCEEDED',
    'LIMIT_BALANCE_CAP_EXCEEDED',
    'AGENT_OPERATION_CEILING_EXCEEDED',
    'AGENT_DAILY_CEILING_EXCEEDED',
    'COMMISSION_OUT_OF_RANGE',
    'UPSTREAM_UNAVAILABLE',
    'UPSTREAM_TIMEOUT',
  )
  async create(
    @CurrentUser() user: AuthUser,
    @Body() dto: CreateIntentDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CreatedIntentView> {
    const { view, replayed } = await this.creation.create(user, dto, clientInfo(request));
    reply.status(201);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return view;
  }

  @Get(':id')
  @ApiOperation({ summary: 'The intent as the ledger holds it now' })
  @ApiOkResponse({ type: IntentView })
  @ApiErrors('INTENT_NOT_FOUND', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'UPSTREAM_UNAVAILABLE')
  get(@CurrentUser() user: AuthUser, @Param('id', IntentIdPipe) id: string): Promise<IntentView> {
    return this.steps.get(user, id);
  }

  @Post(':id/send-otp')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cash-out without a withdrawal QR: send (or send again) the code to the customer',
    description:
      "No body. CREATED → OTP_SENT; from OTP_SENT it only sends a new code (429 OTP_THROTTLED when asked too soon). Auth's own per-phone and per-address throttle is relayed as 429 RATE_LIMITED with Retry-After.",
  })
  @ApiOkResponse({ type: OtpSentView })
  @ApiErrors(...STEP_ERRORS, 'OTP_NOT_REQUIRED', 'OTP_THROTTLED', 'RATE_LIMITED', 'UNAUTHORIZED', 'FORBIDDEN')
  sendOtp(@CurrentUser() user: AuthUser, @Param('id', IntentIdPipe) id: string, @Req() request: FastifyRequest): Promise<OtpSentView> {
    return this.steps.sendOtp(user, id, clientInfo(request));
  }

  @Post(':id/verify-otp')
  @HttpCode(200)
  @ApiOperation({
    summary: "Check the customer's code: OTP_SENT → OTP_VERIFIED",
    description:
      "A wrong code leaves the intent in OTP_SENT and counts; the third wrong code (or auth exhausting the code) fails the intent and releases the hold: 403 INTENT_ATTEMPTS_EXHAUSTED. Auth's throttle on code checks is relayed as 429 RATE_LIMITED with Retry-After.",
  })
  @ApiOkResponse({ type: IntentStepView })
  @ApiErrors(
    ...STEP_ERRORS,
    'OTP_NOT_REQUIRED',
    'OTP_INVALID',
    'OTP_EXPIRED',
    'INTENT_ATTEMPTS_EXHAUSTED',
    'RATE_LIMITED',
    'UNAUTHORIZED',
    'FORBIDDEN',
  )
  verifyOtp(
    @CurrentUser() user: AuthUser,
    @Param('id', IntentIdPipe) id: string,
    @Body() dto: VerifyOtpDto,
    @Req() request: FastifyRequest,
  ): Promise<IntentStepView> {
    return this.steps.verifyOtp(user, id, dto.otpCode, clientInfo(request));
  }

  @Post(':id/verify-pin')
  @HttpCode(200)
  @ApiOperation({
    summary: "Check the initiator's PIN: CREATED (or OTP_VERIFIED) → PIN_VERIFIED",
    description:
      "Checked by auth with the caller's own session; wrong PINs count toward auth's lockout (423 ACCOUNT_LOCKED, and 423 ACCOUNT_HARD_LOCKED once the account needs a PIN reset; 429 PIN_CHECK_IN_PROGRESS with Retry-After while the account's other PIN checks in flight already use every attempt left before the lock) and on the intent: the third fails it and releases the hold (403 INTENT_ATTEMPTS_EXHAUSTED).",
  })
  @ApiOkResponse({ type: IntentStepView })
  @ApiErrors(
    ...STEP_ERRORS,
    'INVALID_PIN',
    'ACCOUNT_LOCKED',
    'ACCOUNT_HARD_LOCKED',
    'PIN_CHECK_IN_PROGRESS',
    'SERVICE_UNAVAILABLE',
    'INTENT_ATTEMPTS_EXHAUSTED',
    'UNAUTHORIZED',
    'FORBIDDEN',
  )
  verifyPin(
    @CurrentUser() user: AuthUser,
    @Param('id', IntentIdPipe) id: string,
    @Body() dto: VerifyPinDto,
    @Req() request: FastifyRequest,
  ): Promise<IntentStepView> {
    return this.steps.verifyPin(user, id, dto.pin, clientInfo(request));
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Execute the payment: PIN_VERIFIED → SUCCEEDED, exactly once',
    description:
      'No body. Safe to retry: every confirm of an intent answers the same transaction. 502/504 mean the outcome is not known yet: confirm again. The fee charged is the quoted one unless the grid became cheaper (then the lower one) or the quote outlived its validity.',
  })
  @ApiOkResponse({ type: ConfirmedIntentView })
  @ApiErrors(
    ...STEP_ERRORS,
    'INSUFFICIENT_BALANCE',
    'CONCURRENCY_CONFLICT',
    'RISK_REJECTED',
    // Limits are checked again when the hold is taken (the version in force and the usage may have changed since create).
    'AMOUNT_BELOW_MINIMUM',
    'AMOUNT_ABOVE_MAXIMUM',
    'LIMIT_SINGLE_OPERATION_EXCEEDED',
    'LIMIT_DAILY_EXCEEDED',
    'LIMIT_MONTHLY_EXCEEDED',
    'LIMIT_BALANCE_CAP_EXCEEDED',
    'AGENT_OPERATION_CEILING_EXCEEDED',
    'AGENT_DAILY_CEILING_EXCEEDED',
    'UNAUTHORIZED',
    'FORBIDDEN',
  )
  confirm(
    @CurrentUser() user: AuthUser,
    @Param('id', IntentIdPipe) id: string,
    @Req() request: FastifyRequest,
  ): Promise<ConfirmedIntentView> {
    return this.confirmation.confirm(user, id, clientInfo(request));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel an intent that is not final yet; the held amount goes back',
    description: 'No body. Cancelling a canceled intent answers 200 again.',
  })
  @ApiOkResponse({ type: IntentStepView })
  @ApiErrors('INTENT_NOT_FOUND', 'INVALID_INTENT_TRANSITION', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'UPSTREAM_UNAVAILABLE')
  cancel(@CurrentUser() user: AuthUser, @Param('id', IntentIdPipe) id: string, @Req() request: FastifyRequest): Promise<IntentStepView> {
    return this.steps.cancel(user, id, clientInfo(request));
  }
}
