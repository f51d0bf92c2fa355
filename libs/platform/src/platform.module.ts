import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { TerminusModule, type HealthIndicatorFunction } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { type BaseConfig, CONFIG, type DatabaseConfig } from './config';
import { explainPoolTimeouts } from './db-pool-logging';
import { EXTRA_HEALTH_CHECKS, HEALTH_HAS_DATABASE, PlatformHealthService } from './health';
import { JOB_LEASE } from './job-lease';
import { PostgresJobLease } from './job-lease.postgres';
import { MetricsService } from './metrics';
import { REDIS, createRedis } from './redis';
import { ServiceKeyGuard } from './service-key.guard';

export interface PlatformOptions {
  service: string;
  config: BaseConfig;
  /** the schema the app owns; omit for an app without a database */
  database?: { schema: string };
  /** provide the shared Redis client (REDIS token) and check it in /health */
  redis?: boolean;
  /** further /health checks, built from the app's own providers */
  healthChecks?: { inject: unknown[]; useFactory: (...deps: never[]) => HealthIndicatorFunction[] };
}

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * What every app gets: its typed config (CONFIG token and its own class), metrics, health,
 * the service-key guard, and optionally its database (TypeORM, own schema) and Redis.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    const { config } = options;
    const providers: Provider[] = [
      { provide: CONFIG, useValue: config },
      { provide: config.constructor, useValue: config },
      MetricsService,
      PlatformHealthService,
      ServiceKeyGuard,
      { provide: HEALTH_HAS_DATABASE, useValue: Boolean(options.database) },
    ];
    const imports: DynamicModule[] = [TerminusModule.forRoot({ logger: false })];
    if (options.redis) {
      providers.push({ provide: REDIS, useFactory: () => createRedis(config) }, RedisCloser);
    }
    if (options.healthChecks) {
      providers.push({
        provide: EXTRA_HEALTH_CHECKS,
        inject: options.healthChecks.inject as never[],
        useFactory: options.healthChecks.useFactory,
      });
    }
    if (options.database) {
      const db = config as DatabaseConfig;
      const { schema } = options.database;
      // Who runs each periodic job among the replicas: one lease connection per process.
      providers.push({
        provide: JOB_LEASE,
        inject: [MetricsService],
        useFactory: (metrics: MetricsService) => new PostgresJobLease({ service: options.service, databaseUrl: db.DATABASE_URL, metrics }),
      });
      imports.push(
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            type: 'postgres',
            url: db.DATABASE_URL,
            schema,
            autoLoadEntities: true,
            synchronize: false,
            migrationsRun: false,
            logging: false,
            retryAttempts: 2,
            retryDelay: 1_000,
            extra: {
              max: db.DB_POOL_SIZE,
              idleTimeoutMillis: db.DB_POOL_IDLE_MS,
              // An idle connection lives for minutes: TCP keep-alive lets the kernel find one a NAT or
              // load balancer dropped meanwhile, instead of the next query.
              keepAlive: true,
              application_name: options.service,
              connectionTimeoutMillis: 5_000,
            },
          }),
          // A checkout that gives up names the pool's holders (db-pool-logging.ts): without it the
          // error reads like an unreachable database when this process used up its own connections.
          dataSourceFactory: async (dsOptions?: DataSourceOptions) => {
            const dataSource = await new DataSource(dsOptions!).initialize();
            explainPoolTimeouts((dataSource.driver as PostgresDriver).master as Pool);
            return dataSource;
          },
        }),
      );
    }
    return {
      module: PlatformModule,
      global: true,
      imports,
      providers,
      exports: [
        CONFIG,
        config.constructor,
        MetricsService,
        PlatformHealthService,
        ServiceKeyGuard,
        ...(options.redis ? [REDIS] : []),
        ...(options.database ? [JOB_LEASE] : []),
        ...imports,
      ],
    };
  }
}
