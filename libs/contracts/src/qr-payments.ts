import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Length } from 'class-validator';
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

/** The question, validated the same way by the orchestrator's relay and the ledger. */
export class QrPaymentsRequest {
  @ApiProperty({ type: [String], minItems: 1, maxItems: QR_PAYMENTS_MAX_TOKENS, example: ['QR8Jd2kP0aZ3xY7q'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QR_PAYMENTS_MAX_TOKENS)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  /** 1 to QR_PAYMENTS_MAX_TOKENS tokens, each as the payment's intent carries it */
  qrTokens: string[];
}

export class QrPaymentsAnswer {
  @ApiProperty({ type: [String], example: ['QR8Jd2kP0aZ3xY7q'], description: 'the tokens asked about that an intent paid (SUCCEEDED)' })
  /** the tokens asked about that an intent paid (SUCCEEDED): money moved */
  paid: string[];

  @ApiProperty({
    type: [String],
    example: [],
    description: 'the tokens asked about with an intent not ended whose deadline has not passed',
  })
  /** the tokens asked about with an intent that has not ended and whose deadline has not passed: it may still pay */
  open: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [
      { eventId: '0b8f3c5e-7a52-4d0e-9a1f-3c2b1d4e5f60', type: 'transaction.completed', qrToken: 'QR8Jd2kP0aZ3xY7q', amount: 2500 },
    ],
    description: "the transaction.completed events of the paid tokens' payments, as published on ledger-events (TransactionCompletedEvent)",
  })
  /**
   * the `transaction.completed` events of those payments, as the ledger publishes them on
   * `ledger-events` (same `eventId`): partners applies any it has not applied yet, so a payment
   * whose event is late or lost still pays its order
   */
  payments: TransactionCompletedEvent[];
}
