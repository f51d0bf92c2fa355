import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { OptionalField } from '@mm/errors';
import {
  PAYMENT_ANOMALY_STATUSES,
  type Page,
  PaymentAnomalyPageDto,
  type PaymentAnomalyStatus,
  type PaymentAnomalyView,
  PaymentAnomalyViewDto,
} from '@mm/contracts';
import { ServiceKeyGuard, ApiErrors } from '@mm/platform';
import { ListQueryDto } from '../common/list-query.dto';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { ResolveAnomalyDto } from '../integrations/dto/integration.dto';
import { PaymentAnomaliesService } from './payment-anomalies.service';

class AnomalyListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: PAYMENT_ANOMALY_STATUSES, example: 'open' })
  @OptionalField()
  @IsIn(PAYMENT_ANOMALY_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: PaymentAnomalyStatus;
}

/** Internal (service key): payments recorded for reversal, for the orchestrator's admin routes. */
@ApiTags('internal: payment anomalies')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('internal/partners/payment-anomalies')
@UseGuards(ServiceKeyGuard)
export class PaymentAnomaliesController {
  constructor(private readonly anomalies: PaymentAnomaliesService) {}

  @Get()
  @ApiOperation({ summary: 'Payments that could not pay their order, newest first' })
  @ApiOkResponse({ type: PaymentAnomalyPageDto })
  list(@Query() query: AnomalyListQueryDto): Promise<Page<PaymentAnomalyView>> {
    return this.anomalies.list(query.status, query.cursor, query.limit ?? 20);
  }

  @Post(':anomalyId/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Records how the payment was settled (e.g. the reversal reference)' })
  @ApiOkResponse({ type: PaymentAnomalyViewDto, description: 'the anomaly, resolved' })
  @ApiErrors('PAYMENT_ANOMALY_NOT_FOUND', 'CONFLICT')
  resolve(
    @Param('anomalyId', new UuidParamPipe('anomalyId', 'PAYMENT_ANOMALY_NOT_FOUND')) id: string,
    @Body() dto: ResolveAnomalyDto,
  ): Promise<PaymentAnomalyView> {
    return this.anomalies.resolve(id, dto.resolution, dto.resolvedBy);
  }
}
