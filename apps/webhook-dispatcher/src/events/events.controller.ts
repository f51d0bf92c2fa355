import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { WebhookQueue } from '../delivery/webhook-queue';
import { serializeEnvelope } from '../delivery/envelope';
import type { AttemptView, EventView } from './event.types';
import { EnqueueEventDto } from './dto/enqueue-event.dto';
import { AttemptViewDto, EventViewDto, QueuedEventView, ResentEventView, ResentEventsView } from './dto/event.views';
import { ResendWindowDto } from './dto/resend-window.dto';
import { ResendOnceDto } from './dto/resend-once.dto';
import { IdempotentResendService, type ResendAnswer } from './idempotent-resend.service';
import { ReplayService } from './replay.service';
import { WebhookEventsRepository } from './webhook-events.repository';

/** Internal (service credential): enqueue, inspect and resend events. */
@ApiTags('webhook events')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/webhooks/events')
@UseGuards(ServiceKeyGuard)
export class EventsController {
  constructor(
    private readonly queue: WebhookQueue,
    private readonly events: WebhookEventsRepository,
    private readonly replay: ReplayService,
    private readonly resendOnce: IdempotentResendService,
  ) {}

  /** Queues an event (job id = event id: a second call with the same id is a no-op). */
  @Post()
  @ApiAcceptedResponse({
    type: QueuedEventView,
    description: 'queued for delivery; the same event id queued again within 24 hours answers the same and is not delivered twice',
  })
  @ApiOperation({
    description:
      'A 503 WEBHOOK_QUEUE_UNAVAILABLE means Redis did not get the job: nothing was queued, call again. A 503 ' +
      'WEBHOOK_QUEUE_UNCONFIRMED means Redis did not answer in time and the job may still be queued; calling again ' +
      'is safe (the job id is the event id, so a second add of a kept job is a no-op).',
  })
  @ApiErrors('INVALID_WEBHOOK_EVENT', 'WEBHOOK_QUEUE_UNAVAILABLE', 'WEBHOOK_QUEUE_UNCONFIRMED')
  @HttpCode(202)
  async enqueue(@Body() dto: EnqueueEventDto): Promise<{ eventId: string; jobId: string }> {
    const job = {
      integrationId: dto.integrationId.toLowerCase(),
      envelope: { event: dto.event, id: dto.id.toLowerCase(), createdAt: dto.createdAt ?? new Date().toISOString(), data: dto.data },
    };
    serializeEnvelope(job);
    const jobId = await this.queue.enqueue(job);
    return { eventId: job.envelope.id, jobId };
  }

  /** Resends the failed or held events received in [from, to), a page at a time. */
  @Post('resend-undelivered')
  @ApiOperation({
    description:
      'Queues again the events of the window that failed after all their attempts or are held, oldest received first, at most ' +
      'WEBHOOK_RESEND_BATCH_MAX (default 1000) per call. When `truncated` is true the window holds more: call again with the ' +
      'same window and `after` set to the last id of `eventIds`, until `truncated` is false. Events that failed while an ' +
      'endpoint was failing, before it was disabled, are `failed`, not held: re-enabling the endpoint does not send them, ' +
      'this route does (with the window of the outage). On 503 WEBHOOK_QUEUE_UNAVAILABLE the events not yet queued keep ' +
      'their state: the same call later picks them up. On 503 WEBHOOK_QUEUE_UNCONFIRMED the event being queued when Redis ' +
      'stopped answering stays pending (its job may still run; the pending sweep queues it again if it never appears) and ' +
      'the events after it keep their state: the same call later picks up those, not the pending one.',
  })
  @ApiAcceptedResponse({ type: ResentEventsView })
  @ApiErrors('INVALID_TIME_WINDOW', 'WEBHOOK_EVENT_NOT_FOUND', 'WEBHOOK_QUEUE_UNAVAILABLE', 'WEBHOOK_QUEUE_UNCONFIRMED')
  @HttpCode(202)
  resendWindow(@Body() dto: ResendWindowDto): Promise<{ eventIds: string[]; truncated: boolean }> {
    return this.replay.resendUndelivered({
      from: new Date(dto.from),
      to: new Date(dto.to),
      integrationId: dto.integrationId?.toLowerCase(),
      after: dto.after?.toLowerCase(),
    });
  }

  @Get(':eventId')
  @ApiOkResponse({ type: EventViewDto })
  @ApiErrors('WEBHOOK_EVENT_NOT_FOUND')
  get(@Param('eventId', new UuidParamPipe('eventId')) eventId: string): Promise<EventView> {
    return this.events.view(eventId);
  }

  @Get(':eventId/attempts')
  @ApiOkResponse({ type: [AttemptViewDto], description: 'every delivery attempt, in order (empty before the first)' })
  @ApiErrors('WEBHOOK_EVENT_NOT_FOUND')
  attempts(@Param('eventId', new UuidParamPipe('eventId')) eventId: string): Promise<AttemptView[]> {
    return this.events.attempts(eventId);
  }

  @Post(':eventId/resend')
  @ApiAcceptedResponse({
    type: ResentEventView,
    description: 'queued again: one more delivery run, with its own job (or, for an idempotency key seen before, the run it started)',
  })
  @ApiOperation({
    description:
      'On 503 WEBHOOK_QUEUE_UNAVAILABLE nothing was queued and the event keeps the state it had (failed, held …): call again. ' +
      'On 503 WEBHOOK_QUEUE_UNCONFIRMED Redis did not answer in time and the job may still run: the event stays pending ' +
      'under the new run, do not resend it; if the job never appears, the pending sweep queues it again after ' +
      'WEBHOOK_PENDING_SWEEP_AGE_MS. Resend only once GET shows it failed or held. With an idempotency key a pending event ' +
      'is refused (409 WEBHOOK_EVENT_PENDING); without one (break-glass) a new run begins and the one going on sends nothing more.',
  })
  @ApiErrors(
    'WEBHOOK_EVENT_NOT_FOUND',
    'WEBHOOK_EVENT_PENDING',
    'WEBHOOK_RESEND_KEY_REUSED',
    'WEBHOOK_QUEUE_UNAVAILABLE',
    'WEBHOOK_QUEUE_UNCONFIRMED',
  )
  @HttpCode(202)
  resend(@Param('eventId', new UuidParamPipe('eventId')) eventId: string, @Body() dto: ResendOnceDto): Promise<ResendAnswer> {
    return this.resendOnce.resend(eventId, dto?.idempotencyKey);
  }
}
