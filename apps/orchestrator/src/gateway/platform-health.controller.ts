import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, type HealthIndicatorFunction } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { CONFIG, PlatformHealthService } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { UPSTREAMS, type UpstreamName, type Upstreams } from './upstreams';

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
  @ApiResponse({ status: 200, description: 'every check is up: `{ status: "ok", info, details }`' })
  @ApiResponse({
    status: 503,
    description: 'a check is down (this service, its database or Redis, or an upstream service): `{ status: "error", error, details }`',
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
