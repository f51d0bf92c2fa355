import { Body, Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@mm/platform';
import type { ConsentProofAnswer } from '@mm/contracts';
import { AuthConfig } from '../auth.config';
import { clientIp } from '../common/client-ip';
import { type OtpProof, OtpService } from '../otp/otp.service';
import { RateLimit } from '../rate-limit/rate-limit.guard';
import { AccessTokenGuard, type AuthContext, CurrentAuth } from '../sessions/access-token.guard';
import { ChangePinDto, CheckPinDto, ResetPinRequestDto, ResetPinVerifyDto } from './pin.dto';
import { PinService } from './pin.service';
import { ResetTokenView, OtpSentView } from '../otp/otp.views';
import { PinChangedView, PinCheckView } from './pin.views';

/** The PIN endpoints (docs/mobile-api.md "Accounts and tokens"). The reset itself is the orchestrator's (`/orchestrator/auth/reset-pin`). */
@ApiTags('auth')
@Controller('auth')
export class PinController {
  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly pins: PinService,
    private readonly otp: OtpService,
  ) {}

  @Post('check-pin')
  @ApiErrors(
    'VALIDATION_ERROR',
    'INVALID_PIN',
    'ACCOUNT_LOCKED',
    'ACCOUNT_HARD_LOCKED',
    'PIN_CHECK_IN_PROGRESS',
    'SERVICE_UNAVAILABLE',
    'TOKEN_MISSING',
    'TOKEN_INVALID',
    'TOKEN_EXPIRED',
    'TOKEN_REVOKED',
  )
  @ApiBearerAuth()
  @ApiOperation({
    summary:
      'Checks the PIN of the signed-in user; failures count toward the lockout like logins. With `intentId`, a right PIN also returns `consentProof` and `consentProofExpiresAt`: the single-use proof (2 min by default) the ledger needs to move that intent to PIN_VERIFIED.',
  })
  @ApiOkResponse({
    type: PinCheckView,
    description: '`{ valid: true }`, plus `consentProof` and `consentProofExpiresAt` when `intentId` was given',
  })
  @HttpCode(200)
  @UseGuards(AccessTokenGuard)
  check(@CurrentAuth() auth: AuthContext, @Body() body: CheckPinDto): Promise<{ valid: true } & Partial<ConsentProofAnswer>> {
    return this.pins.check(auth.userId, body.pin, body.intentId);
  }

  @Post('change-pin')
  @ApiErrors(
    'VALIDATION_ERROR',
    'PIN_POLICY_VIOLATION',
    'INVALID_PIN',
    'ACCOUNT_LOCKED',
    'ACCOUNT_HARD_LOCKED',
    'PIN_CHECK_IN_PROGRESS',
    'SERVICE_UNAVAILABLE',
    'TOKEN_MISSING',
    'TOKEN_INVALID',
    'TOKEN_EXPIRED',
    'TOKEN_REVOKED',
  )
  @ApiBearerAuth()
  @ApiOperation({
    summary:
      'Changes the PIN (old PIN required, PIN rule applies: 4-6 digits, no 0000/1234/1212, not the end of the phone number); ends every other session.',
  })
  @ApiOkResponse({ type: PinChangedView, description: 'the PIN is changed; this session stays, every other one ended' })
  @HttpCode(200)
  @UseGuards(AccessTokenGuard)
  change(@CurrentAuth() auth: AuthContext, @Body() body: ChangePinDto): Promise<{ changed: true; revokedSessions: number }> {
    return this.pins.change(auth.userId, auth.sessionId, body.oldPin, body.newPin);
  }

  /** Sends a PIN_RESET code (same answer whether or not the phone has an account). */
  @Post('reset-pin/request')
  @ApiErrors('VALIDATION_ERROR', 'OTP_THROTTLED', 'RATE_LIMITED')
  @ApiOperation({ summary: 'Sends a PIN_RESET code (counts toward the OTP send limits of /auth/send-otp).' })
  @ApiAcceptedResponse({
    type: OtpSentView,
    description: 'the same answer, as late, whether or not the phone has an account and the SMS provider takes the message',
  })
  @RateLimit('OTP_SEND')
  @HttpCode(202)
  async request(
    @Body() body: ResetPinRequestDto,
    @Req() request: FastifyRequest,
  ): Promise<{ sent: true; expiresInSec: number; resendAfterSec: number }> {
    // A PIN_RESET code goes to any account, whatever its status; OtpService.send answers the same either way.
    const result = await this.otp.send(body.phone, 'PIN_RESET', clientIp(request, this.config.TRUST_FORWARDED_FOR));
    return { sent: true, ...result };
  }

  /**
   * Checks and consumes a PIN_RESET code without resetting, so an app can tell a mistyped code from
   * a right one before asking for the new PIN. No public route takes the `resetToken`: only auth's
   * internal reset (the orchestrator's call) redeems it. The public reset, the orchestrator's, takes
   * the code itself, and still accepts a code consumed here while its proof is valid: the
   * orchestrator checks it with `verify-reset-pin-otp`, which replays a consumed code.
   */
  @Post('reset-pin/verify-otp')
  @ApiErrors('VALIDATION_ERROR', 'OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXHAUSTED', 'RATE_LIMITED')
  @ApiOperation({
    summary:
      'Checks the PIN_RESET code without resetting, and consumes it. To reset, send the same code with the new PIN to POST /api/orchestrator/auth/reset-pin, which still accepts it for 10 min after this check. Counts toward the OTP verify limits of /auth/verify-otp.',
  })
  @ApiOkResponse({
    type: ResetTokenView,
    description:
      "the code is right and consumed; `resetToken` (the same value as `proof`) is accepted by no public route (only by auth's internal reset, which the orchestrator calls)",
  })
  @RateLimit('OTP_VERIFY')
  @HttpCode(200)
  async verify(@Body() body: ResetPinVerifyDto): Promise<OtpProof & { resetToken: string }> {
    const proof = await this.otp.verify(body.phone, 'PIN_RESET', body.otp);
    return { ...proof, resetToken: proof.proof };
  }
}
