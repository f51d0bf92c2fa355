import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags, PartialType } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, type HealthIndicatorFunction } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { CONFIG, InternalHttpClient, PlatformHealthService } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { type UpstreamName, upstreamUrls } from './upstreams';

/** One replica of a service that runs several (the n-th of its configured URLs, counting from 0). */
class ReplicaOutcome {
  @ApiProperty({ example: 1, description: "position of the replica in the service's URL list, from 0" })
  replica: number;

  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status: 'up' | 'down';

  @ApiPropertyOptional({ example: 'ledger-wallets is unavailable', description: 'only when down: why' })
  message?: string;
}

/** One check's outcome, as @nestjs/terminus reports it. */
class HealthCheckOutcome {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status: 'up' | 'down';

  @ApiProperty({ example: 4, description: 'milliseconds the check took' })
  responseTime: number;

  @ApiPropertyOptional({ example: 'timeout of 2000ms exceeded', description: 'only when down: why' })
  message?: string;

  @ApiPropertyOptional({
    type: [ReplicaOutcome],
    description: 'only for a service running several replicas: each of them; the service is up while one is',
  })
  replicas?: ReplicaOutcome[];
}

/** The checks by name: the orchestrator itself (its database and Redis) and each service it calls. */
class PlatformHealthChecks {
  @ApiProperty({ type: HealthCheckOutcome })
  orchestrator: HealthCheckOutcome;

  @ApiProperty({ type: HealthCheckOutcome })
  auth: HealthCheckOutcome;

  @ApiProperty({ type: HealthCheckOutcome })
  partners: HealthCheckOutcome;

  @ApiProperty({ type: HealthCheckOutcome })
  'ledger-wallets': HealthCheckOutcome;

  @ApiProperty({ type: HealthCheckOutcome })
  'webhook-dispatcher': HealthCheckOutcome;
}

/** The same checks, only those in one state (`info`: up, `error`: down); a check in the other state is absent. */
class PlatformHealthSubset extends PartialType(PlatformHealthChecks) {}

export class PlatformHealthView {
  @ApiProperty({
    enum: ['ok', 'degraded', 'error', 'shutting_down'],
    example: 'ok',
    description:
      'ok (200) when every check is up; degraded (200) when every service is up but a replica of one is down ' +
      '(see its `replicas`); error or shutting_down (503) otherwise',
  })
  status: 'ok' | 'degraded' | 'error' | 'shutting_down';

  @ApiProperty({ type: PlatformHealthSubset, description: 'the checks that are up' })
  info: PlatformHealthSubset;

  @ApiProperty({ type: PlatformHealthSubset, description: 'the checks that are down (empty when status is ok)' })
  error: PlatformHealthSubset;

  @ApiProperty({ type: PlatformHealthChecks, description: 'every check' })
  details: PlatformHealthChecks;
}

/**
 * GET /api/health: the orchestrator's own checks plus the `/health` of every other service. A
 * service running several replicas is asked at each of them: it is up while one answers (the
 * gateway balances around the others), and a replica down makes the platform `degraded`, still
 * 200 so that a load balancer keeps this entry point, while the body names the replica to look at.
 */
@ApiTags('health')
@Controller('health')
export class PlatformHealthController {
  /** one client per replica (a single one when the service runs one): the balanced clients would hide a replica down */
  private readonly replicas: Record<UpstreamName, InternalHttpClient[]>;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly own: PlatformHealthService,
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
  ) {
    const urls = upstreamUrls(config);
    this.replicas = Object.fromEntries(
      (Object.keys(urls) as UpstreamName[]).map((name) => [
        name,
        urls[name].map(
          (baseUrl) =>
            new InternalHttpClient({ name, baseUrl, serviceKey: config.INTERNAL_SERVICE_KEY, timeoutMs: config.HEALTH_TIMEOUT_MS }),
        ),
      ]),
    ) as Record<UpstreamName, InternalHttpClient[]>;
  }

  @Get()
  @ApiResponse({ status: 200, description: 'every check is up', type: PlatformHealthView })
  @ApiResponse({
    status: 503,
    description: 'a check is down (this service, its database or Redis, or an upstream service), or the service is shutting down',
    type: PlatformHealthView,
  })
  async check(@Res() reply: FastifyReply): Promise<void> {
    const checks: HealthIndicatorFunction[] = [
      () =>
        this.indicators
          .check('orchestrator')
          .attempt(async () => {
            const own = await this.own.check();
            if (own.status !== 200) throw new Error('database or redis down');
          })
          .withTimeout(this.config.HEALTH_TIMEOUT_MS),
      ...(Object.keys(this.replicas) as UpstreamName[]).map((name) =>
        this.replicas[name].length === 1 ? this.single(name, this.replicas[name][0]) : this.replicated(name, this.replicas[name]),
      ),
    ];
    try {
      const result = await this.health.check(checks);
      const degraded = Object.values(result.details).some((d) => Array.isArray(d.replicas) && d.replicas.some(isDown));
      await reply.send(degraded ? { ...result, status: 'degraded' } : result);
    } catch (error) {
      const response = (error as { getResponse?: () => unknown }).getResponse?.();
      if (!response) throw error;
      await reply.status(503).send(response);
    }
  }

  private single(name: UpstreamName, client: InternalHttpClient): HealthIndicatorFunction {
    return () =>
      this.indicators
        .check(name)
        .attempt(async () => {
          await client.get('/health', { timeoutMs: this.config.HEALTH_TIMEOUT_MS });
        })
        .withTimeout(this.config.HEALTH_TIMEOUT_MS);
  }

  /** Every replica at once, each within the budget; the service is down only when none answers. */
  private replicated(name: UpstreamName, clients: InternalHttpClient[]): HealthIndicatorFunction {
    return async () => {
      const started = Date.now();
      const replicas: ReplicaOutcome[] = await Promise.all(
        clients.map(async (client, replica) => {
          try {
            await client.get('/health', { timeoutMs: this.config.HEALTH_TIMEOUT_MS });
            return { replica, status: 'up' as const };
          } catch (error) {
            return { replica, status: 'down' as const, message: error instanceof Error ? error.message : String(error) };
          }
        }),
      );
      const indicator = this.indicators.check(name);
      const data = { responseTime: Date.now() - started, replicas };
      return replicas.some((r) => r.status === 'up')
        ? indicator.up(data)
        : indicator.down({ ...data, message: `no replica of ${name} answered` });
    };
  }
}

function isDown(outcome: { status?: unknown }): boolean {
  return outcome.status === 'down';
}
