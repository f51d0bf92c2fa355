import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags, PartialType } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, type HealthIndicatorFunction } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { CONFIG, PlatformHealthService } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { UPSTREAMS, type UpstreamName, type Upstreams } from './upstreams';

/** One check's outcome, as @nestjs/terminus reports it. */
class HealthCheckOutcome {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status: 'up' | 'down';

  @ApiProperty({ example: 4, description: 'milliseconds the check took' })
  responseTime: number;

  @ApiPropertyOptional({ example: 'timeout of 2000ms exceeded', description: 'only when down: why' })
  message?: string;
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
    enum: ['ok', 'error', 'shutting_down'],
    example: 'ok',
    description: 'ok (200) when every check is up; error or shutting_down (503) otherwise',
  })
  status: 'ok' | 'error' | 'shutting_down';

  @ApiProperty({ type: PlatformHealthSubset, description: 'the checks that are up' })
  info: PlatformHealthSubset;

  @ApiProperty({ type: PlatformHealthSubset, description: 'the checks that are down (empty when status is ok)' })
  error: PlatformHealthSubset;

  @ApiProperty({ type: PlatformHealthChecks, description: 'every check' })
  details: PlatformHealthChecks;
}

/** GET /api/health: the orchestrator's own checks plus the `/health` of every other service. */
@ApiTags('health')
@Controller('health')
export class PlatformHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly own: PlatformHealthService,
    @Inject(UPSTREAMS) private readonly upstreams: Upstreams,
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
  ) {}

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
      ...(Object.keys(this.upstreams) as UpstreamName[]).map(
        (name) => () =>
          this.indicators
            .check(name)
            .attempt(async () => {
              await this.upstreams[name].get('/health', { timeoutMs: this.config.HEALTH_TIMEOUT_MS });
            })
            .withTimeout(this.config.HEALTH_TIMEOUT_MS),
      ),
    ];
    try {
      await reply.send(await this.health.check(checks));
    } catch (error) {
      const response = (error as { getResponse?: () => unknown }).getResponse?.();
      if (!response) throw error;
      await reply.status(503).send(response);
    }
  }
}
