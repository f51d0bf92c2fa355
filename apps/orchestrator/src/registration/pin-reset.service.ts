import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { CONFIG } from '@mm/platform';
import { AuthIdentityClient } from '../clients/identity-clients';
import { maskPhone } from '../common/validators';
import type { OrchestratorConfig } from '../orchestrator.config';
import { HourlyThrottle } from './hourly-throttle';

/**
 * PIN reset (docs/registration.md "PIN reset"): 1 verify the OTP through auth, 2 find the user by phone, 3 reset the PIN
 * (identity provider and local store: auth also lifts every lock and ends every session). Nothing
 * to compensate: only step 3 changes anything, and it is one call.
 *
 * Anti-enumeration: step 1 answers alike for a phone with or without an account. Auth stores a
 * stand-in code, which no SMS carries and which never verifies, when a code is asked for a phone
 * without one, so a wrong code is OTP_INVALID (then OTP_ATTEMPTS_EXHAUSTED) for both, and OTP_EXPIRED
 * for both when nothing was asked. Step 2 runs only after a verified code (a user deleted in
 * between answers like an expired code). Throttling: on top
 * of auth's per-code attempt limit, at most PIN_RESET_MAX_PER_PHONE_PER_HOUR attempts per phone
 * and PIN_RESET_MAX_PER_IP_PER_HOUR per client address (429 RATE_LIMITED with Retry-After),
 * counted before anything is checked, for known and unknown phones alike.
 */
@Injectable()
export class PinResetWorkflow {
  private readonly logger = new Logger(PinResetWorkflow.name);

  constructor(
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
    private readonly throttle: HourlyThrottle,
    private readonly auth: AuthIdentityClient,
  ) {}

  async reset(phone: string, otp: string, newPin: string, clientIp: string): Promise<{ reset: true }> {
    // Fixed one-hour windows; Redis down: fail open (auth's own OTP limits still hold).
    await this.throttle.consume('PIN reset', [
      { key: `pin-reset:phone:${phone}`, max: this.config.PIN_RESET_MAX_PER_PHONE_PER_HOUR },
      { key: `pin-reset:ip:${clientIp}`, max: this.config.PIN_RESET_MAX_PER_IP_PER_HOUR },
    ]);
    // Idempotent at auth: a retry with the same code within its proof's life gets the same proof.
    const { resetToken } = await this.auth.verifyResetPinOtp(phone, otp);
    const user = await this.auth.userByPhone(phone).catch((error: unknown) => {
      if (error instanceof AppException && error.code === 'USER_NOT_FOUND') throw new AppException('OTP_EXPIRED');
      throw error;
    });
    await this.auth.resetPin(phone, resetToken, newPin);
    this.logger.log({ msg: 'PIN reset through the workflow', userId: user.id, phone: maskPhone(phone) });
    return { reset: true };
  }
}
