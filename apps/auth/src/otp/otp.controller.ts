import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiAcceptedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiErrors } from '@mm/platform';
import type { ConsentProofAnswer } from '@mm/contracts';
import { AuthConfig } from '../auth.config';
import { clientIp } from '../common/client-ip';
import { RateLimit } from '../rate-limit/rate-limit.guard';
import { SendOtpDto, VerifyOtpDto } from './otp.dto';
import { type OtpProof, OtpService } from './otp.service';
import { OtpConsentProofView, OtpProofView, OtpSentView } from './otp.views';

/**
 * Spec 3 OTP endpoints. Codes go only to phones with an account; the answer is the same either
 * way. `verify-otp` returns a proof (`proof`) that a later step (PIN reset, intent confirmation) redeems.
 */
@ApiTags('auth')
@Controller('auth')
export class OtpController {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly otp: OtpService,
  ) {}

  @Post('send-otp')
  @ApiErrors('VALIDATION_ERROR', 'OTP_THROTTLED', 'RATE_LIMITED')
  @ApiOperation({
    summary:
      'Sends a 6-digit code (valid 5 min, 5 attempts) for a purpose. Throttled: one per phone per 60 s, hourly caps per phone and per IP (429 OTP_THROTTLED, Retry-After); and 3 sends per phone / 10 per client address in 10 min across all purposes (429 RATE_LIMITED, Retry-After). Same answer, no sooner than OTP_SEND_MIN_MS (0.4 s by default), for unknown phones and whether or not the SMS provider takes the message.',
  })
  @ApiAcceptedResponse({ type: OtpSentView, description: 'the same answer whether or not a code was really sent (unknown phone)' })
  @RateLimit('OTP_SEND')
  @HttpCode(202)
  async send(
    @Body() body: SendOtpDto,
    @Req() request: FastifyRequest,
  ): Promise<{ sent: true; expiresInSec: number; resendAfterSec: number }> {
    // Codes go to active accounts only; OtpService.send answers the same either way.
    const result = await this.otp.send(
      body.phone,
      body.purpose,
      clientIp(request, this.config.TRUST_FORWARDED_FOR),
      (user) => user?.status === 'ACTIVE',
    );
    return { sent: true, ...result };
  }

  @Post('verify-otp')
  @ApiOperation({
    summary:
      'Verifies and consumes a code (once). With `intentId` (purpose INTENT), the answer also carries `consentProof` and `consentProofExpiresAt`: the single-use proof the ledger needs to move that intent to OTP_VERIFIED.',
  })
  @ApiExtraModels(OtpProofView, OtpConsentProofView)
  @ApiOkResponse({
    description: 'the OTP proof; plus `consentProof` and `consentProofExpiresAt` when `intentId` was given',
    schema: { oneOf: [{ $ref: getSchemaPath(OtpProofView) }, { $ref: getSchemaPath(OtpConsentProofView) }] },
  })
  @ApiResponse({
    status: 400,
    description: 'OTP_INVALID, OTP_EXPIRED (also used or unknown), OTP_ATTEMPTS_EXHAUSTED, CONSENT_OTP_PURPOSE_INVALID, VALIDATION_ERROR',
  })
  @ApiErrors('RATE_LIMITED')
  @RateLimit('OTP_VERIFY')
  @HttpCode(200)
  verify(@Body() body: VerifyOtpDto): Promise<OtpProof | (OtpProof & ConsentProofAnswer)> {
    if (body.intentId) return this.otp.verifyForIntent(body.phone, body.purpose, body.otp, body.intentId);
    return this.otp.verify(body.phone, body.purpose, body.otp);
  }
}
