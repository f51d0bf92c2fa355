import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { QrPaymentsAnswer, QrPaymentsRequest } from '@mm/contracts';
import { InternalRoute } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';
import { LedgerClient } from '../ledger-client/ledger.client';

/**
 * Internal (service key): partners asks, before it expires orders, whether the ledger paid their QR
 * tokens (libs/contracts qr-payments.ts). The orchestrator only relays: the answer is the ledger's.
 */
@ApiTags('qr payments (internal)')
@Controller('internal/qr-payments')
@InternalRoute()
export class InternalQrPaymentsController {
  constructor(private readonly ledger: LedgerClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Which of these QR tokens the ledger paid, and which it may still pay' })
  @ApiOkResponse({ type: QrPaymentsAnswer })
  @ApiErrors('VALIDATION_ERROR', 'INVALID_SERVICE_CREDENTIALS', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  outcomes(@Body() body: QrPaymentsRequest): Promise<QrPaymentsAnswer> {
    return this.ledger.qrPayments({ qrTokens: body.qrTokens });
  }
}
