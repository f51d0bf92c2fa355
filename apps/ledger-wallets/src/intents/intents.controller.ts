import { Body, Controller, Get, Headers, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe, idempotencyKeyHeader } from '../common/uuid-param.pipe';
import type { IdempotentResponse } from '../idempotency/idempotency.service';
import { CreateIntentDto } from './dto/create-intent.dto';
import { TransitionIntentDto } from './dto/transition-intent.dto';
import { IntentTransitionService } from './intent-transition.service';
import type { IntentView } from './intent-view';
import { IntentsService } from './intents.service';

function answer<T>(reply: FastifyReply, result: IdempotentResponse<T>): T {
  reply.status(result.status);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return result.body;
}

@Controller('internal/intents')
@UseGuards(ServiceKeyGuard)
export class IntentsController {
  constructor(
    private readonly intents: IntentsService,
    private readonly transitions: IntentTransitionService,
  ) {}

  /** 201 with the intent; the same idempotencyKey and body again answers the same 201 (header Idempotent-Replayed). */
  @Post()
  async create(@Body() dto: CreateIntentDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<IntentView> {
    return answer(reply, await this.intents.create(dto));
  }

  @Get(':id')
  get(@Param('id', UuidParamPipe) id: string): Promise<IntentView> {
    return this.intents.get(id);
  }

  @Get(':id/events')
  events(@Param('id', UuidParamPipe) id: string): Promise<Record<string, unknown>[]> {
    return this.intents.events(id);
  }

  /** X-Idempotency-Key is optional (recommended on SUCCEEDED); X-Correlation-Id lands in the transaction metadata. */
  @Post(':id/transition')
  async transition(
    @Param('id', UuidParamPipe) id: string,
    @Body() dto: TransitionIntentDto,
    @Headers('x-idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntentView> {
    return answer(reply, await this.transitions.transition(id, dto, idempotencyKeyHeader(idempotencyKey)));
  }
}
