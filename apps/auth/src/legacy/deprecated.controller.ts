import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@mm/platform';
import { AppException } from '@mm/errors';
import { OtpService } from '../otp/otp.service';
import { type PinResetResult, PinResetService } from '../pin/pin-reset.service';
import { RateLimit } from '../rate-limit/rate-limit.guard';
import { DeprecationHeaders } from './deprecation-headers.guard';
import { LegacyResetPinConfirmDto } from './legacy.dto';
import { PinResetView } from '../pin/pin.views';

const MOVED = 'Registration is the orchestrator workflow (identity, customer, wallet and notification, undone together on failure)';

/**
 * Deprecated (docs/registration.md "Routes"): registration and the PIN-reset confirmation moved to the orchestrator, which
 * owns multi-service workflows; through the gateway, `/api/auth/register*` and
 * `/api/auth/reset-pin/confirm` already reach it.
 *
 * Here, registering would create a user with no customer and no wallet, a half-registered account:
 * the register routes only answer 410 REGISTRATION_MOVED with a `Link` to their successor (the
 * Deprecation header says since when). The PIN-reset confirmation touches nothing but auth, so it
 * still works for direct callers: the OTP checked and the PIN reset in one call.
 */
@ApiTags('auth (deprecated)')
@Controller('auth')
@UseGuards(DeprecationHeaders)
export class DeprecatedController {
  constructor(
    private readonly otp: OtpService,
    private readonly reset: PinResetService,
  ) {}

  @Post(['register', 'register/merchant', 'register/agent', 'register/admin'])
  @ApiOperation({
    deprecated: true,
    summary:
      'Moved: POST /api/orchestrator/auth/register (…/merchant, …/agent, …/admin). Answers 410 REGISTRATION_MOVED and a Link header.',
  })
  // Only ever an error: the 410 with the common error body is its one documented answer.
  @ApiErrors('REGISTRATION_MOVED')
  @HttpCode(410)
  moved(): never {
    throw new AppException('REGISTRATION_MOVED', MOVED);
  }

  @Post('reset-pin/confirm')
  @ApiErrors(
    'VALIDATION_ERROR',
    'OTP_INVALID',
    'OTP_EXPIRED',
    'OTP_ATTEMPTS_EXHAUSTED',
    'PIN_POLICY_VIOLATION',
    'RESET_TOKEN_INVALID',
    'RATE_LIMITED',
  )
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /orchestrator/auth/reset-pin' })
  @ApiOkResponse({ type: PinResetView, description: 'the code is consumed and the PIN reset, locks lifted, sessions ended' })
  @RateLimit('OTP_VERIFY')
  @HttpCode(200)
  async confirmReset(@Body() body: LegacyResetPinConfirmDto): Promise<PinResetResult> {
    const proof = await this.otp.verify(body.phone, 'PIN_RESET', body.otp);
    return this.reset.reset(body.phone, proof.proof, body.newPin);
  }
}
