import { Injectable } from '@nestjs/common';
import type { Counter, Histogram } from 'prom-client';
import { MetricsService } from '@mm/platform';

/** `superseded`: the job's run was no longer the event's latest, nothing was sent. */
export type DeliveryOutcome = 'delivered' | 'retry_scheduled' | 'failed' | 'held' | 'duplicate' | 'superseded';
export type AttemptResult = 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused' | 'dns_error' | 'secret_unreadable';

/** Deliveries by outcome, attempt latency and queue lag (docs/operations.md "Metrics and alerts"). */
@Injectable()
export class WebhookMetrics {
  readonly outcomes: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'result'>;
  readonly queueLag: Histogram<'job'>;

  constructor(metrics: MetricsService) {
    this.outcomes = metrics.counter('webhook_deliveries_total', 'Webhook job results by outcome', ['outcome']);
    this.attemptDuration = metrics.histogram(
      'webhook_attempt_duration_seconds',
      'Duration of one delivery attempt (DNS and the egress check included; 0 when the secret cannot be decrypted)',
      ['result'],
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    );
    this.queueLag = metrics.histogram(
      'webhook_queue_lag_seconds',
      'Time from enqueue to the first attempt of a job',
      ['job'],
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120],
    );
  }
}
