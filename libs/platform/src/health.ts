import { Inject, Injectable, Optional, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckService,
  type HealthCheckResult,
  HealthIndicatorService,
  type HealthIndicatorFunction,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { REDIS } from './redis';

export const EXTRA_HEALTH_CHECKS = Symbol('EXTRA_HEALTH_CHECKS');
/** whether the app owns a database (terminus provides its TypeORM indicator either way) */
export const HEALTH_HAS_DATABASE = Symbol('HEALTH_HAS_DATABASE');

const CHECK_TIMEOUT_MS = 1_500;

/** What `GET /health` reports: the app's database and Redis, plus any checks the app adds. */
@Injectable()
export class PlatformHealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly db: TypeOrmHealthIndicator,
    @Inject(HEALTH_HAS_DATABASE) private readonly hasDatabase: boolean,
    @Optional() @Inject(REDIS) private readonly redis?: Redis,
    @Optional() @Inject(EXTRA_HEALTH_CHECKS) private readonly extra: HealthIndicatorFunction[] = [],
  ) {}

  /** Returns the terminus result and the HTTP status to answer with (200 or 503). */
  async check(): Promise<{ status: number; body: HealthCheckResult }> {
    const checks: HealthIndicatorFunction[] = [];
    if (this.hasDatabase) checks.push(() => this.db.pingCheck('database').withTimeout(CHECK_TIMEOUT_MS));
    if (this.redis) {
      const redis = this.redis;
      checks.push(() =>
        this.indicators
          .check('redis')
          .attempt(async () => {
            await redis.ping();
          })
          .withTimeout(CHECK_TIMEOUT_MS),
      );
    }
    checks.push(...this.extra);
    try {
      return { status: 200, body: await this.health.check(checks) };
    } catch (error) {
      if (error instanceof ServiceUnavailableException) {
        return { status: 503, body: error.getResponse() as HealthCheckResult };
      }
      throw error;
    }
  }
}
