import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { QrOrderResolution } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { ServiceKeyGuard, ApiErrors } from '@mm/platform';
import { QrOrderResolutionView } from './dto/qr-order.views';
import { OrdersService } from './orders.service';

/** Internal (service key): the orchestrator's QR-pay path resolves a scanned token to the order it pays. */
@ApiTags('internal: QR orders')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS')
@Controller('internal/partners/qr')
@UseGuards(ServiceKeyGuard)
export class QrController {
  constructor(private readonly orders: OrdersService) {}

  @Get(':qrToken')
  @ApiOperation({
    summary: 'Live order behind a QR token',
    description:
      'Pay only when payable is true, exactly amount in currencyCode to destinationAccountId, with the token on the ledger intent.',
  })
  @ApiOkResponse({
    type: QrOrderResolutionView,
    description: 'the live order behind the token, payable or not (an expired or paid order still answers, with payable false)',
  })
  @ApiParam({
    name: 'qrToken',
    description: 'the token of an order (another shape answers 404 QR_NOT_FOUND)',
    schema: { type: 'string', pattern: '^pqr_[0-9A-Za-z]{43}$', example: 'pqr_7Hq2kLm9Xc4Vb8Nz1Qw6Er3Ty5Ui0Op2As4Df6Gh8Jk' },
  })
  @ApiErrors('QR_NOT_FOUND')
  resolve(@Param('qrToken') qrToken: string): Promise<QrOrderResolution> {
    if (!/^pqr_[0-9A-Za-z]{43}$/.test(qrToken)) throw new AppException('QR_NOT_FOUND');
    return this.orders.resolveQr(qrToken);
  }
}
