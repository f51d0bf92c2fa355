import { OrchestratorConfig } from '../orchestrator.config';

/** The money flow's knobs, from the orchestrator config (variables documented in .env.example). */
export interface PaymentsSettings {
  /** wrong PINs on one intent before it fails (auth's own lockout counts them too) */
  maxPinAttempts: number;
  /** wrong OTPs on one intent before it fails */
  maxOtpAttempts: number;
  /** lifetime of a withdrawal QR, seconds */
  withdrawalQrTtlSec: number;
  /** tests only: honour X-Payments-Fault (refused at boot in production) */
  faultInjection: boolean;
}

export function paymentsSettings(config: OrchestratorConfig): PaymentsSettings {
  if (config.PAYMENTS_FAULT_INJECTION && config.NODE_ENV === 'production') {
    throw new Error('Invalid configuration: PAYMENTS_FAULT_INJECTION must be false in production');
  }
  return {
    maxPinAttempts: config.INTENT_MAX_PIN_ATTEMPTS,
    maxOtpAttempts: config.INTENT_MAX_OTP_ATTEMPTS,
    withdrawalQrTtlSec: config.WITHDRAWAL_QR_TTL_SEC,
    faultInjection: config.PAYMENTS_FAULT_INJECTION,
  };
}

export const PAYMENTS_SETTINGS = Symbol('PAYMENTS_SETTINGS');
