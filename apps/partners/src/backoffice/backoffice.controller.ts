import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import {
  CONNECTION_STATUSES,
  type ConnectionStatus,
  type IntegrationSummary,
  IntegrationSummaryDto,
  IntegrationSummaryPageDto,
  PARTNER_MODES,
  type Page,
  type PartnerEventRef,
  PartnerEventRefDto,
  type PartnerMode,
  StaffConnectionPageDto,
  type StaffConnectionView,
} from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { ServiceKeyGuard, ApiErrors } from '@mm/platform';
import { ListQueryDto } from '../common/list-query.dto';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { BackofficeService } from './backoffice.service';

export class StaffConnectionsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: CONNECTION_STATUSES, example: 'active' })
  @OptionalField()
  @IsIn(CONNECTION_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: ConnectionStatus;

  @ApiPropertyOptional({ enum: PARTNER_MODES, example: 'live', description: 'both modes when absent' })
  @OptionalField()
  @IsIn(PARTNER_MODES)
  mode?: PartnerMode;
}

const integrationId = () => new UuidParamPipe('integrationId', 'INTEGRATION_NOT_FOUND');

/** Internal (service key, the orchestrator alone): what staff read in the back office. */
@ApiTags('internal: back office')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/partners/backoffice')
@UseGuards(ServiceKeyGuard)
export class BackofficeController {
  constructor(private readonly backoffice: BackofficeService) {}

  @Get('integrations')
  @ApiOperation({ summary: 'Integrations with their two webhook endpoints and live connection counts, newest first' })
  @ApiOkResponse({ type: IntegrationSummaryPageDto })
  integrations(@Query() query: ListQueryDto): Promise<Page<IntegrationSummary>> {
    return this.backoffice.integrations(query.cursor, query.limit ?? 20);
  }

  @Get('integrations/:integrationId')
  @ApiOkResponse({ type: IntegrationSummaryDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  integration(@Param('integrationId', integrationId()) id: string): Promise<IntegrationSummary> {
    return this.backoffice.integration(id);
  }

  @Get('integrations/:integrationId/connections')
  @ApiOperation({ summary: 'Connections of the integration to merchants (both modes unless one is asked), newest first' })
  @ApiOkResponse({ type: StaffConnectionPageDto })
  @ApiErrors('INTEGRATION_NOT_FOUND')
  connections(
    @Param('integrationId', integrationId()) id: string,
    @Query() query: StaffConnectionsQueryDto,
  ): Promise<Page<StaffConnectionView>> {
    return this.backoffice.connections(id, query);
  }

  @Get('orders/:orderId/events')
  @ApiOperation({ summary: 'The events written about one order, oldest first (none for an unknown order)' })
  @ApiOkResponse({ type: [PartnerEventRefDto] })
  orderEvents(@Param('orderId', new UuidParamPipe('orderId')) orderId: string): Promise<PartnerEventRef[]> {
    return this.backoffice.orderEvents(orderId);
  }

  @Get('events/:eventId')
  @ApiOkResponse({ type: PartnerEventRefDto })
  @ApiErrors('WEBHOOK_EVENT_NOT_FOUND')
  event(@Param('eventId', new UuidParamPipe('eventId', 'WEBHOOK_EVENT_NOT_FOUND')) eventId: string): Promise<PartnerEventRef> {
    return this.backoffice.event(eventId);
  }
}
