import { Body, Controller, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { ReplayService } from '../events/replay.service';
import type { EndpointView, HealthEventView } from './endpoint.types';
import { EndpointsService } from './endpoints.service';
import { SetEndpointDto } from './dto/set-endpoint.dto';
import { EnabledEndpointView, EndpointViewDto, HealthEventViewDto, RotatedSecretView, SetEndpointView } from './dto/endpoint.views';

/** Internal (service credential): endpoint URL, secret rotation, health. */
@ApiTags('webhook endpoints')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/webhooks/endpoints')
@UseGuards(ServiceKeyGuard)
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly replay: ReplayService,
  ) {}

  /** Creates or re-points the endpoint; `secret` is present only when the endpoint is created. */
  @Put(':integrationId')
  @ApiOkResponse({
    type: SetEndpointView,
    description: 'the endpoint, created or re-pointed (200 either way); `secret` only when this call created it',
  })
  @ApiErrors('INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN_ADDRESS')
  async set(
    @Param('integrationId', new UuidParamPipe('integrationId')) integrationId: string,
    @Body() dto: SetEndpointDto,
  ): Promise<EndpointView & { secret?: string }> {
    const { endpoint, secret } = await this.endpoints.setUrl(integrationId, dto.url);
    return secret ? { ...endpoint, secret } : endpoint;
  }

  @Get(':integrationId')
  @ApiOkResponse({ type: EndpointViewDto })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  get(@Param('integrationId', new UuidParamPipe('integrationId')) integrationId: string): Promise<EndpointView> {
    return this.endpoints.get(integrationId);
  }

  /** Returns the new secret, once; the previous one keeps signing until `previousSecretExpiresAt`. */
  @Post(':integrationId/rotate-secret')
  @ApiOkResponse({ type: RotatedSecretView })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  @HttpCode(200)
  rotate(
    @Param('integrationId', new UuidParamPipe('integrationId')) integrationId: string,
  ): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
    return this.endpoints.rotateSecret(integrationId);
  }

  /** Re-enables a disabled endpoint and replays its held events. */
  @Post(':integrationId/enable')
  @ApiOperation({
    description:
      'Enables the endpoint and queues again every event it holds: those that arrived while it was disabled (or had no ' +
      'endpoint), and those whose retries were still running when it was disabled. Events that used up all their attempts ' +
      'during the failing period before the disable are `failed`, not held: send them with POST ' +
      '/internal/webhooks/events/resend-undelivered over the window of the outage. Calling it again is harmless; after a 503 ' +
      'WEBHOOK_QUEUE_UNAVAILABLE (Redis did not take a job) the events not queued are still held, and calling it again sends them. ' +
      'After a 503 WEBHOOK_QUEUE_UNCONFIRMED (Redis did not answer in time) the event being queued stays pending, its job ' +
      'possibly still to run (the pending sweep queues it again if not), and calling again sends the ones still held.',
  })
  @ApiOkResponse({
    type: EnabledEndpointView,
    description: 'the endpoint, enabled (unchanged if it already was), and how many held events were queued again',
  })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_QUEUE_UNAVAILABLE', 'WEBHOOK_QUEUE_UNCONFIRMED')
  @HttpCode(200)
  async enable(
    @Param('integrationId', new UuidParamPipe('integrationId')) integrationId: string,
  ): Promise<{ endpoint: EndpointView; replayed: number }> {
    const endpoint = await this.endpoints.enable(integrationId, 'enabled by an operator');
    const replayed = await this.replay.replayHeld(integrationId);
    return { endpoint, replayed };
  }

  /** Operator-visible record of disable/enable decisions. */
  @Get(':integrationId/health-events')
  @ApiOkResponse({ type: [HealthEventViewDto], description: 'oldest first; empty while the endpoint was never disabled' })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  health(@Param('integrationId', new UuidParamPipe('integrationId')) integrationId: string): Promise<HealthEventView[]> {
    return this.endpoints.healthEvents(integrationId);
  }
}
