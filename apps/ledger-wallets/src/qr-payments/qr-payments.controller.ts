import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { QrPaymentsAnswer, QrPaymentsRequest } from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { QrPaymentsService } from './qr-payments.service';

/**
 * Whether QR tokens were paid, for partners' order expiry, asked through the orchestrator's
 * internal listener (docs/partners.md "Expiry and replicas"). A read: POST only because the list of
 * tokens is long.
 */
@ApiTags('qr-payments')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED')
@Controller('internal/qr-payments')
@UseGuards(ServiceKeyGuard)
export class QrPaymentsController {
  constructor(private readonly payments: QrPaymentsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Which of these QR tokens an intent paid, and which an intent may still pay',
    description: 'Tokens with no intent, or whose intents all ended unpaid or are past their deadline, are in neither list.',
  })
  @ApiOkResponse({ type: QrPaymentsAnswer })
  @ApiErrors('VALIDATION_ERROR')
  outcomes(@Body() body: QrPaymentsRequest): Promise<QrPaymentsAnswer> {
    return this.payments.outcomes(body.qrTokens);
  }
}
