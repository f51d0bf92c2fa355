import type { TransactionCompletedEvent } from './ledger-events';

/**
 * What the ledger knows of the payments made with QR tokens, asked before partners expires an
 * order: partners learns of a payment from the ledger's events, which can run late (Redis down, a
 * backlog), while the ledger knows at once. Partners asks the orchestrator's internal listener (the
 * link it already has), which asks the ledger; docs/partners.md "Expiry and replicas".
 */
export const QR_PAYMENT_ROUTES = {
  /** POST QrPaymentsRequest → 200 QrPaymentsAnswer: the ledger's internal route (the orchestrator calls it) */
  ledger: '/v1/internal/qr-payments',
  /** POST QrPaymentsRequest → 200 QrPaymentsAnswer: the orchestrator's internal listener (partners calls it) */
  orchestrator: '/api/internal/qr-payments',
} as const;

/** The most tokens one question may name (a sweep's batch). */
export const QR_PAYMENTS_MAX_TOKENS = 200;

export interface QrPaymentsRequest {
  /** 1 to QR_PAYMENTS_MAX_TOKENS tokens, each as the payment's intent carries it */
  qrTokens: string[];
}

export interface QrPaymentsAnswer {
  /** the tokens asked about that an intent paid (SUCCEEDED): money moved */
  paid: string[];
  /**
   * the `transaction.completed` events of those payments, as the ledger publishes them on
   * `ledger-events` (same `eventId`): partners applies any it has not applied yet, so a payment
   * whose event is late or lost still pays its order
   */
  payments: TransactionCompletedEvent[];
  /** the tokens asked about with an intent that has not ended and whose deadline has not passed: it may still pay */
  open: string[];
}
