import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  type OrderWebhookDeliveries,
  OrderWebhookDeliveriesDto,
  type Page,
  type PartnerMode,
  type WebhookDeliveryLog,
  WebhookDeliveryLogDto,
  type WebhookEnableResult,
  WebhookEnableResultDto,
  type WebhookEndpointState,
  WebhookEndpointStateDto,
  WebhookEventPageDto,
  type WebhookEventSummary,
  type WebhookRecoverResult,
  WebhookRecoverResultDto,
  type WebhookResendResult,
  WebhookResendResultDto,
} from '@mm/contracts';
import { RequirePermission } from '../../access/permissions';
import { uuid } from '../../common/validators';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { AuditedRead } from '../../staff-audit/audit-metadata';
import { ModeParamPipe, RecoverEventsDto, ResendEventDto, WebhookEventsQuery } from './webhook-operations.dto';
import { WebhookOperationsService } from './webhook-operations.service';

/**
 * Webhook deliveries of partner integrations for staff: the event list and each event's delivery
 * log (every attempt), resending one event, recovering everything undelivered since a time, and the
 * endpoints with enabling a disabled one. Reads need `operations.read`, actions `webhooks.manage`;
 * the `ops` key on the dispatcher's private port is only for break-glass use.
 */
@ApiTags('back office: webhooks')
@ApiErrors('VALIDATION_ERROR', 'UPSTREAM_UNAVAILABLE')
@Controller('backoffice/webhooks')
export class BackofficeWebhooksController {
  constructor(private readonly webhooks: WebhookOperationsService) {}

  @Get('integrations/:integrationId/events')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({
    summary:
      "The integration's events with their delivery state, newest received first (filters: status incl. held and undelivered, type, mode, time received)",
  })
  @ApiOkResponse({ type: WebhookEventPageDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'INVALID_TIME_WINDOW')
  events(
    @Param('integrationId', uuid('integrationId')) id: string,
    @Query() query: WebhookEventsQuery,
  ): Promise<Page<WebhookEventSummary>> {
    return this.webhooks.events(id.toLowerCase(), query);
  }

  @Get('events/:eventId')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @AuditedRead({ type: 'webhook-event', param: 'eventId' })
  @ApiParam({ name: 'eventId', format: 'uuid' })
  @ApiOperation({
    summary: 'The delivery log of one event: its state and every attempt (time, URL, HTTP status, latency, response excerpt, error)',
  })
  @ApiOkResponse({ type: WebhookDeliveryLogDto })
  @ApiErrors('WEBHOOK_EVENT_NOT_FOUND')
  event(@Param('eventId', uuid('eventId')) eventId: string): Promise<WebhookDeliveryLog> {
    return this.webhooks.deliveryLog(eventId.toLowerCase());
  }

  @Get('orders/:orderId')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @ApiParam({ name: 'orderId', format: 'uuid' })
  @ApiOperation({
    summary: 'The webhooks of one partner order (order.paid, order.expired) with their delivery logs; none for an unknown order',
  })
  @ApiOkResponse({ type: OrderWebhookDeliveriesDto })
  order(@Param('orderId', uuid('orderId')) orderId: string): Promise<OrderWebhookDeliveries> {
    return this.webhooks.eventsForOrder(orderId.toLowerCase());
  }

  @Post('events/:eventId/resend')
  @HttpCode(202)
  @RequirePermission('webhooks.manage')
  @ApiAdminRoute('webhooks.manage')
  @ApiParam({ name: 'eventId', format: 'uuid' })
  @ApiOperation({
    summary: 'Sends one event again (a new delivery run, same body and event id); the same idempotency key sent again queues nothing more',
    description:
      'On 503 WEBHOOK_QUEUE_UNAVAILABLE nothing was queued: send the same request again. On 503 WEBHOOK_QUEUE_UNCONFIRMED the run may still go out: ' +
      'sending the same request again answers that run (`repeated: true`) instead of starting another. An event still pending ' +
      '(its delivery is going on) is refused with 409 WEBHOOK_EVENT_PENDING: a second run beside it would deliver it twice.',
  })
  @ApiAcceptedResponse({ type: WebhookResendResultDto })
  @ApiErrors(
    'WEBHOOK_EVENT_NOT_FOUND',
    'WEBHOOK_EVENT_PENDING',
    'WEBHOOK_RESEND_KEY_REUSED',
    'WEBHOOK_QUEUE_UNAVAILABLE',
    'WEBHOOK_QUEUE_UNCONFIRMED',
  )
  resend(@Param('eventId', uuid('eventId')) eventId: string, @Body() dto: ResendEventDto): Promise<WebhookResendResult> {
    return this.webhooks.resend(eventId.toLowerCase(), dto.idempotencyKey);
  }

  @Post('integrations/:integrationId/recover')
  @HttpCode(202)
  @RequirePermission('webhooks.manage')
  @ApiAdminRoute('webhooks.manage')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({
    summary: 'Queues again every failed or held event of the integration received since a time (at most 31 days back); answers how many',
    description:
      'Delivered and pending events are left alone. Held events of a disabled endpoint are queued too: they stay held again until it is enabled. ' +
      'Recoveries at once (two operators, or a recovery beside an enable) queue each event once: `queued` counts those this call queued. ' +
      'After a 503 the events not yet queued keep their state, and the same call later picks them up.',
  })
  @ApiAcceptedResponse({ type: WebhookRecoverResultDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'INVALID_TIME_WINDOW', 'WEBHOOK_QUEUE_UNAVAILABLE', 'WEBHOOK_QUEUE_UNCONFIRMED')
  recover(@Param('integrationId', uuid('integrationId')) id: string, @Body() dto: RecoverEventsDto): Promise<WebhookRecoverResult> {
    return this.webhooks.recover(id.toLowerCase(), dto.since, dto.mode);
  }

  @Get('integrations/:integrationId/endpoints')
  @RequirePermission('operations.read')
  @ApiAdminRoute('operations.read')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiOperation({ summary: 'The live and test endpoints: URL, enabled or disabled (why, since when), events held, disable/enable history' })
  @ApiOkResponse({ type: [WebhookEndpointStateDto] })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  endpoints(@Param('integrationId', uuid('integrationId')) id: string): Promise<WebhookEndpointState[]> {
    return this.webhooks.endpoints(id.toLowerCase());
  }

  @Post('integrations/:integrationId/endpoints/:mode/enable')
  @HttpCode(200)
  @RequirePermission('webhooks.manage')
  @ApiAdminRoute('webhooks.manage')
  @ApiParam({ name: 'integrationId', format: 'uuid' })
  @ApiParam({ name: 'mode', enum: ['live', 'test'] })
  @ApiOperation({
    summary: 'Enables a disabled endpoint; the events it held go out again (enabling an enabled endpoint changes nothing)',
    description:
      'Events that failed every attempt before the endpoint was disabled are `failed`, not held: recover them over the outage. ' +
      'After a 503 the events not queued are still held: calling again sends them.',
  })
  @ApiOkResponse({ type: WebhookEnableResultDto })
  @ApiErrors('INTEGRATION_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_QUEUE_UNAVAILABLE', 'WEBHOOK_QUEUE_UNCONFIRMED')
  enable(
    @Param('integrationId', uuid('integrationId')) id: string,
    @Param('mode', ModeParamPipe) mode: PartnerMode,
  ): Promise<WebhookEnableResult> {
    return this.webhooks.enable(id.toLowerCase(), mode);
  }
}
