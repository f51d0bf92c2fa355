import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { DispatcherEndpointState, DispatcherEventView, Page } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { EndpointViewDto, HealthEventViewDto } from '../endpoints/dto/endpoint.views';
import type { EndpointView, HealthEventView } from '../endpoints/endpoint.types';
import { EndpointsService } from '../endpoints/endpoints.service';
import { EventViewDto } from '../events/dto/event.views';
import { EventSearchRepository } from './event-search.repository';
import { SearchEventsQuery } from './search-events.dto';

class EventPageView {
  @ApiProperty({ type: [EventViewDto] })
  data: EventViewDto[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' })
  nextCursor: string | null;
}

class EndpointStateView implements DispatcherEndpointState {
  @ApiProperty({ type: EndpointViewDto })
  endpoint: EndpointView;

  @ApiProperty({ type: 'integer', minimum: 0, example: 3, description: 'events waiting for the endpoint to be enabled' })
  held: number;

  @ApiProperty({ type: [HealthEventViewDto], description: 'every disable and enable, oldest first' })
  history: HealthEventView[];
}

/** Internal (service credential): what the back office reads to show an integration's webhooks. */
@ApiTags('webhook operations')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/webhooks')
@UseGuards(ServiceKeyGuard)
export class OperationsController {
  constructor(
    private readonly search: EventSearchRepository,
    private readonly endpoints: EndpointsService,
  ) {}

  @Get('events')
  @ApiOperation({ summary: 'Events of some endpoints, filtered by status, type and time received, newest received first' })
  @ApiOkResponse({ type: EventPageView })
  @ApiErrors('INVALID_TIME_WINDOW')
  events(@Query() query: SearchEventsQuery): Promise<Page<DispatcherEventView>> {
    return this.search.search({ ...query, endpointIds: query.endpointIds.split(',') });
  }

  @Get('endpoints/:integrationId/state')
  @ApiOperation({ summary: 'The endpoint, how many events it holds, and its disable/enable history' })
  @ApiOkResponse({ type: EndpointStateView })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  async state(@Param('integrationId', new UuidParamPipe('integrationId')) id: string): Promise<DispatcherEndpointState> {
    const endpoint = await this.endpoints.get(id);
    const [held, history] = await Promise.all([this.search.heldCount(id), this.endpoints.healthEvents(id)]);
    return { endpoint, held, history };
  }
}
