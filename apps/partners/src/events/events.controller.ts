import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Page, WebhookEnvelope } from '@mm/contracts';
import { ApiErrors } from '@mm/platform';
import { PartnerApi } from '../common/public-api';
import { CurrentPartner, type PartnerPrincipal } from '../keys/partner-principal';
import { EventListQueryDto, EventPageDto } from './dto/event.dto';
import { EventsService } from './events.service';

@ApiTags('events')
@PartnerApi()
@Controller('partners-public/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    summary: 'Events of the last 30 days, newest first (what the webhooks carried)',
    description:
      "For catching up after an outage of your receiver: each item is the exact envelope a webhook carries (event, id, createdAt, data). Only events of the key's mode. Page with cursor = nextCursor until it is null.",
  })
  @ApiOkResponse({ type: EventPageDto })
  @ApiErrors('VALIDATION_ERROR')
  list(@CurrentPartner() partner: PartnerPrincipal, @Query() query: EventListQueryDto): Promise<Page<WebhookEnvelope>> {
    return this.events.list(partner, query.type, query.cursor, query.limit ?? 20);
  }
}
