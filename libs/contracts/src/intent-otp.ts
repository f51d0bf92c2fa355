/**
 * What an INTENT code authorises, as the orchestrator states it to auth (`POST /auth/send-otp`,
 * field `intent`; auth's IntentOtpContextDto implements it): auth binds the code to `intentId` (it
 * verifies for that intent only) and its SMS states the rest, so the customer knows what reading
 * the code out agrees to.
 */
export interface IntentOtpFacts {
  intentId: string;
  /** CASH_OUT: a cash withdrawal with an agent */
  operation: 'CASH_OUT';
  /** in the currency's unit (XAF and XOF have no minor unit) */
  amount: number;
  currency: string;
  /** the agent the customer withdraws with, as the platform issued its code */
  agentCode?: string;
}
