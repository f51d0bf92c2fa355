import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiErrors, ServiceCallerKeys } from '@mm/platform';
import type { ConsentProofAnswer } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { AuthConfig } from '../auth.config';
import { clientIp } from '../common/client-ip';
import { RateLimit } from '../rate-limit/rate-limit.guard';
import { SendOtpDto, VerifyOtpDto } from './otp.dto';
import { type OtpProof, OtpService } from './otp.service';
import { OtpConsentProofView, OtpProofView, OtpSentView } from './otp.views';

/**
 * The OTP endpoints (docs/mobile-api.md "Accounts and tokens"). `send-otp` sends LOGIN and INTENT codes to active accounts only, PIN_RESET
 * codes to any account (as reset-pin/request does); the answers are the same either way (a phone
 * that gets no SMS gets a stand-in code, which replaces its live code like any send: see
 * OtpService.send). `verify-otp` returns a proof (`proof`) that a later step (PIN reset, intent
 * confirmation) redeems. Purpose INTENT is the orchestrator's alone (`assertOrchestrator`): its
 * codes are bound to one intent.
 */
@ApiTags('auth')
@Controller('auth')
export class OtpController {
  private readonly callers: ServiceCallerKeys;

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly otp: OtpService,
  ) {
    this.callers = new ServiceCallerKeys(config.INTERNAL_TRUSTED_CALLERS ?? '');
  }

  /**
   * INTENT codes belong to the orchestrator's intent steps. Their SMS states what the code
   * authorises (amount, agent), facts auth cannot check: only the service holding the intent may
   * state them, or anyone could have a customer read out a code whose SMS names one amount while it
   * is bound to an intent of another. These routes are public (the gateway strips X-Service-Key),
   * so only a direct call with the orchestrator's own key passes; the request's log line names it.
   */
  private assertOrchestrator(request: FastifyRequest): void {
    if (this.callers.identify(request) !== 'orchestrator') throw new AppException('OTP_PURPOSE_NOT_ALLOWED');
  }

  @Post('send-otp')
  @ApiErrors('VALIDATION_ERROR', 'OTP_THROTTLED', 'RATE_LIMITED', 'OTP_PURPOSE_NOT_ALLOWED')
  @ApiOperation({
    summary:
      'Sends a 6-digit code (valid 5 min, 5 attempts) for a purpose. Throttled: one per phone per 60 s, hourly caps per phone and per IP (429 OTP_THROTTLED, Retry-After); and 3 sends per phone / 10 per client address in 10 min across all purposes (429 RATE_LIMITED, Retry-After). Same answer, no sooner than OTP_SEND_MIN_MS (0.4 s by default), for unknown phones and whether or not the SMS provider takes the message. Purpose INTENT: the orchestrator only (403 OTP_PURPOSE_NOT_ALLOWED otherwise), with `intent`; the code is bound to that intent and its SMS states the amount and the agent.',
  })
  // Whole bodies: `intent` goes with purpose INTENT and only with it, which per-field examples cannot show.
  @ApiBody({
    type: SendOtpDto,
    examples: {
      login: { summary: 'a login code', value: { phone: '+237690000001', purpose: 'LOGIN' } },
      intent: {
        summary: 'a code for a cash-out (orchestrator only)',
        value: {
          phone: '+237690000001',
          purpose: 'INTENT',
          intent: {
            intentId: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15',
            operation: 'CASH_OUT',
            amount: 5000,
            currency: 'XAF',
            agentCode: 'AG04817263',
          },
        },
      },
    },
  })
  @ApiAcceptedResponse({ type: OtpSentView, description: 'the same answer whether or not a code was really sent (unknown phone)' })
  @RateLimit('OTP_SEND')
  @HttpCode(202)
  async send(
    @Body() body: SendOtpDto,
    @Req() request: FastifyRequest,
  ): Promise<{ sent: true; expiresInSec: number; resendAfterSec: number }> {
    if (body.purpose === 'INTENT') this.assertOrchestrator(request);
    if ((body.purpose === 'INTENT') !== (body.intent !== undefined)) {
      throw fieldError('intent', body.intent ? 'UNKNOWN_FIELD' : 'REQUIRED', 'intent is required for purpose INTENT and only for it');
    }
    // Who gets a code (by purpose) is OtpService.send's decision; it answers the same either way.
    const result = await this.otp.send(body.phone, body.purpose, clientIp(request, this.config.TRUST_FORWARDED_FOR), body.intent);
    return { sent: true, ...result };
  }

  @Post('verify-otp')
  @ApiOperation({
    summary:
      'Verifies and consumes a code (once). Purpose INTENT: the orchestrator only (403 OTP_PURPOSE_NOT_ALLOWED otherwise), with the `intentId` the code was sent for (a code sent for another intent is a wrong code, OTP_INVALID); the answer then also carries `consentProof` and `consentProofExpiresAt`: the single-use proof the ledger needs to move that intent to OTP_VERIFIED. Purposes LOGIN and PIN_RESET: a phone without an account answers like an account whose code was sent and is mistyped (INTENT codes are checked by the orchestrator alone, for its own intents).',
  })
  @ApiExtraModels(OtpProofView, OtpConsentProofView)
  @ApiOkResponse({
    description: 'the OTP proof; plus `consentProof` and `consentProofExpiresAt` when `intentId` was given',
    schema: { oneOf: [{ $ref: getSchemaPath(OtpProofView) }, { $ref: getSchemaPath(OtpConsentProofView) }] },
  })
  @ApiBody({
    type: VerifyOtpDto,
    examples: {
      login: { summary: 'a login code', value: { phone: '+237690000001', purpose: 'LOGIN', otp: '424310' } },
      intent: {
        summary: 'a code sent for an intent (orchestrator only)',
        value: { phone: '+237690000001', purpose: 'INTENT', otp: '424310', intentId: '3f1c2a9e-5b7d-4c1e-9a2f-6d8e0b4c7a15' },
      },
    },
  })
  @ApiResponse({
    status: 400,
    description: 'OTP_INVALID, OTP_EXPIRED (also used or unknown), OTP_ATTEMPTS_EXHAUSTED, CONSENT_OTP_PURPOSE_INVALID, VALIDATION_ERROR',
    schema: { $ref: '#/components/schemas/ErrorBody' },
  })
  @ApiErrors('RATE_LIMITED', 'OTP_PURPOSE_NOT_ALLOWED')
  @RateLimit('OTP_VERIFY')
  @HttpCode(200)
  verify(@Body() body: VerifyOtpDto, @Req() request: FastifyRequest): Promise<OtpProof | (OtpProof & ConsentProofAnswer)> {
    if (body.purpose === 'INTENT') {
      this.assertOrchestrator(request);
      if (!body.intentId) throw fieldError('intentId', 'REQUIRED', 'intentId is required for purpose INTENT');
    }
    if (body.intentId) return this.otp.verifyForIntent(body.phone, body.purpose, body.otp, body.intentId);
    return this.otp.verify(body.phone, body.purpose, body.otp);
  }
}

function fieldError(field: string, code: string, message: string): AppException {
  return new AppException('VALIDATION_ERROR', `${field}: ${message}`, { errors: [{ field, code, message }] });
}
