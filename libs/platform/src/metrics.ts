import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One Prometheus registry per app instance (not prom-client's global one), so several apps can
 * live in one process in tests without colliding. Feature code registers its own metrics here.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
  }

  counter<L extends string>(name: string, help: string, labelNames: L[] = []): Counter<L> {
    return (this.registry.getSingleMetric(name) as Counter<L>) ?? new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  gauge<L extends string>(name: string, help: string, labelNames: L[] = []): Gauge<L> {
    return (this.registry.getSingleMetric(name) as Gauge<L>) ?? new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: L[] = [], buckets?: number[]): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L>) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }
}
