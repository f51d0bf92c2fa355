import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppException } from '@mm/errors';
import { PublicRoute } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';
import { EstimateQueryDto, EstimateView } from './dto/estimate.dto';
import { PricingService } from './pricing.service';

@ApiTags('config')
@Controller('config/pricing')
export class PricingController {
  constructor(private readonly pricing: PricingService) {}

  /** What an operation would cost now; nothing is stored or promised (the quote comes with the intent). */
  @Get('estimate')
  @PublicRoute()
  @ApiOperation({ summary: 'Fee of an operation under the grid in force (an estimate: the intent quote is what binds)' })
  @ApiOkResponse({ type: EstimateView })
  @ApiErrors('VALIDATION_ERROR', 'PRICING_UNAVAILABLE', 'AMOUNT_ABOVE_MAXIMUM')
  async estimate(@Query() query: EstimateQueryDto): Promise<EstimateView> {
    const pricing = await this.pricing.estimate(query);
    const total = query.amount + pricing.fee;
    if (!Number.isSafeInteger(total))
      throw new AppException('AMOUNT_ABOVE_MAXIMUM', 'Amount plus fee is beyond what can be represented exactly');
    return { type: query.type, amount: query.amount, currency: query.currency, ...pricing, total };
  }
}
