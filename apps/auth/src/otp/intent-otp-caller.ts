import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { SERVICE_KEY_HEADER, type TrustedCallers, identifyCaller, parseTrustedCallers } from '@mm/platform';
import type { AuthConfig } from '../auth.config';

/**
 * INTENT codes belong to the orchestrator's intent steps. Their SMS states what the code
 * authorises (amount, agent), and auth cannot check those facts itself: only the caller that holds
 * the intent may state them. Anyone else could have a customer read out a code whose SMS names
 * one amount while the code is bound to an intent of another. The public routes are reached from
 * the Internet through the gateway, which strips X-Service-Key, so only a direct call with the
 * orchestrator's own key passes.
 */
export class IntentOtpCaller {
  private readonly trusted: TrustedCallers;

  constructor(config: AuthConfig) {
    this.trusted = parseTrustedCallers(config.INTERNAL_TRUSTED_CALLERS ?? '');
  }

  assertOrchestrator(request: FastifyRequest): void {
    const key = request.headers[SERVICE_KEY_HEADER];
    const caller = typeof key === 'string' ? identifyCaller(this.trusted, key) : undefined;
    if (caller !== 'orchestrator') throw new AppException('OTP_PURPOSE_NOT_ALLOWED');
  }
}
