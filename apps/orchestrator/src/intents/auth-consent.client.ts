import { Injectable } from '@nestjs/common';
import type { ConsentProofAnswer, IntentOtpFacts } from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';

export interface OtpSent {
  expiresInSec: number;
  resendAfterSec: number;
}

/**
 * The three auth calls of an intent's consent steps. Auth does the counting (PIN lockout, OTP
 * attempts, OTP throttles) and, on success, issues the single-use consent proof the ledger
 * requires (libs/contracts consent.ts). The end client's address travels in X-Forwarded-For so
 * auth's per-IP throttles see the customer, not the orchestrator.
 */
@Injectable()
export class AuthConsentClient {
  private readonly http: InternalHttpClient;

  constructor(config: OrchestratorConfig) {
    this.http = new InternalHttpClient({
      name: 'auth',
      baseUrl: config.AUTH_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  /** The initiator's PIN, checked with the initiator's own session (403 INVALID_PIN, 423 ACCOUNT_LOCKED). */
  checkPin(accessToken: string, pin: string, intentId: string, clientIp?: string): Promise<ConsentProofAnswer> {
    return this.http.post<{ valid: true } & ConsentProofAnswer>(
      '/auth/check-pin',
      { pin, intentId },
      { headers: { authorization: `Bearer ${accessToken}`, ...forwarded(clientIp) } },
    );
  }

  /**
   * Sends an INTENT code to the customer's phone, bound to this intent (it verifies for no other)
   * and with an SMS that states what it authorises (429 OTP_THROTTLED when asked again too soon).
   */
  sendOtp(phone: string, intent: IntentOtpFacts, clientIp?: string): Promise<OtpSent> {
    return this.http.post<OtpSent>('/auth/send-otp', { phone, purpose: 'INTENT', intent }, { headers: forwarded(clientIp) });
  }

  /**
   * Consumes the code (400 OTP_INVALID, OTP_EXPIRED, OTP_ATTEMPTS_EXHAUSTED) and yields the OTP step's
   * proof. A code sent for another intent is a wrong code (OTP_INVALID).
   */
  verifyOtp(phone: string, otp: string, intentId: string, clientIp?: string): Promise<ConsentProofAnswer> {
    return this.http.post<ConsentProofAnswer>(
      '/auth/verify-otp',
      { phone, purpose: 'INTENT', otp, intentId },
      { headers: forwarded(clientIp) },
    );
  }
}

function forwarded(clientIp?: string): Record<string, string> {
  return clientIp ? { 'x-forwarded-for': clientIp } : {};
}
